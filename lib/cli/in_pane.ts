// Lending the pane you are in without restarting the server: `eval "$(tmux-mcp enroll)"`
// finds the running server that has tmux_run enabled and is bound to this pane's tmux server,
// asks it for an invitation for $TMUX_PANE, and prints the line that sources it. All three opt-in
// layers stay: only such a server publishes itself, and the invitation enrolls nothing until
// this pane's own root shell sources it.
import { SERVER_RECORD, type ServerRecord } from "../host/server_record.ts";
import { processExists } from "../host/processes.ts";
import { privateBase, whyNotPrivate } from "../host/rendezvous.ts";
import {
  directoryProblem,
  type PrivacyProblem,
  TempDirectoryError,
} from "../host/directory_problems.ts";
import { realPath } from "../tmux/caller.ts";
import { shellQuote } from "../util/shell_quote.ts";
import { helperPerlMissing } from "./prerequisites.ts";

const REFUSALS: Record<string, string> = {
  "tmux-too-old": "tmux 3.3 or newer is required",
  "busy": "the server has too many pending invitations; try again in a minute",
  "no-pane": "the server cannot see this pane",
};

/** The socket's real path, or the path as given when it does not resolve. */
async function socketIdentity(path: string): Promise<string> {
  return await realPath(path) ?? path;
}

type Found = { pid: number; channel: string };

/**
 * The server directories to look in, and where that is, in words: the one the server's own
 * line names (`--directory`, checked to be ours, 0700 and not a symlink, as the pane's
 * XDG_RUNTIME_DIR or TMPDIR may differ from the server's), else every server's in this pane's
 * private base. A refusal is thrown as the line to print.
 */
async function serverDirectories(directory?: string): Promise<{ where: string; dirs: string[] }> {
  if (directory !== undefined) {
    const problem = await whyNotPrivate(directory);
    if (problem !== null) {
      throw new Error(
        `the server directory ${directory} given by --directory ${NOT_PRIVATE[problem]}; ` +
          "ask the server for its enroll line again (tmux_capabilities' enroll_command)",
      );
    }
    return { where: directory, dirs: [directory] };
  }
  let base;
  try {
    base = await privateBase();
  } catch (error) {
    if (!(error instanceof TempDirectoryError)) throw error;
    throw new Error(
      `${directoryProblem(error)}; fix it, or type the server's own enroll line ` +
        "(tmux_capabilities' enroll_command), which names the server's directory",
    );
  }
  const dirs: string[] = [];
  for await (const entry of Deno.readDir(base.path)) {
    if (!entry.isDirectory || !entry.name.startsWith(base.serverPrefix)) continue;
    const dir = `${base.path}/${entry.name}`;
    // The base may be a shared /tmp (privateBase): only our own private ones are read.
    if (await whyNotPrivate(dir) === null) dirs.push(dir);
  }
  return { where: `${base.path}/${base.serverPrefix}*`, dirs };
}

const NOT_PRIVATE: Record<PrivacyProblem | "missing", string> = {
  missing: "does not exist (has that server stopped?)",
  symlink: "is a symlink, never followed",
  not_directory: "is not a directory",
  other_owner: "belongs to another user",
  too_open: "is open to other users (a server's is mode 0700)",
};

/** Servers with tmux_run enabled, in `dirs`, that are bound to the tmux server at `socket`. */
async function serversFor(socket: string, dirs: string[]): Promise<Found[]> {
  const wanted = await socketIdentity(socket);
  const found: Found[] = [];
  for (const dir of dirs) {
    try {
      const record: ServerRecord = JSON.parse(await Deno.readTextFile(`${dir}/${SERVER_RECORD}`));
      if (await socketIdentity(record.tmux_socket) !== wanted || !await processExists(record.pid)) {
        continue;
      }
      // Every server publishes a record; only one with tmux_run has a channel to ask.
      const channel = `${dir}/channel`;
      if (!(await Deno.lstat(channel)).isSocket) continue;
      found.push({ pid: record.pid, channel });
    } catch {
      // A server starting up or shutting down: not one to ask.
    }
  }
  return found;
}

async function askForInvitation(channel: string, paneId: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: channel });
  try {
    await conn.write(new TextEncoder().encode(`I ${paneId}\n`));
    let reply = "";
    for await (const chunk of conn.readable) {
      reply += new TextDecoder().decode(chunk);
      if (reply.includes("\n")) break;
    }
    return reply.trim();
  } finally {
    try {
      conn.close();
    } catch {
      // The server closes first after answering.
    }
  }
}

/**
 * `tmux-mcp enroll`: on stdout the line `eval` runs, on stderr one line when it refuses. A
 * refusal prints `false` for `eval` to run, so the `eval "$(tmux-mcp enroll)"` line fails too.
 */
export async function runEnroll(
  serverPid?: string,
  directory?: string,
  quiet = false,
): Promise<number> {
  const status = await enroll(serverPid, directory, quiet);
  if (status !== 0) console.log("false");
  return status;
}

async function enroll(serverPid?: string, directory?: string, quiet = false): Promise<number> {
  const tmux = Deno.env.get("TMUX");
  const paneId = Deno.env.get("TMUX_PANE");
  if (!tmux || !paneId) {
    console.error("tmux-mcp: run this inside the tmux pane you want to lend");
    return 1;
  }
  // This pane's shell starts the helper, so this is the view of the machine that counts.
  const noPerl = await helperPerlMissing();
  if (noPerl) {
    console.error(`tmux-mcp: not enrolled: ${noPerl}`);
    return 1;
  }
  let searched;
  try {
    searched = await serverDirectories(directory);
  } catch (error) {
    console.error(`tmux-mcp: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
  let servers = await serversFor(tmux.split(",")[0], searched.dirs);
  if (serverPid !== undefined) servers = servers.filter((s) => String(s.pid) === serverPid);
  if (servers.length === 0) {
    const which = serverPid === undefined ? "" : ` as pid ${serverPid}`;
    console.error(
      `tmux-mcp: no running server with tmux_run enabled is bound to this tmux server${which} ` +
        `(searched ${searched.where}); a server started with another XDG_RUNTIME_DIR or TMPDIR ` +
        "keeps its directory elsewhere: type its own enroll line (tmux_capabilities' " +
        "enroll_command), which names it",
    );
    return 1;
  }
  if (servers.length > 1) {
    console.error(
      `tmux-mcp: several servers are bound to this tmux server; pick one with --server PID (${
        servers.map((s) => s.pid).join(", ")
      })`,
    );
    return 1;
  }
  const reply = await askForInvitation(servers[0].channel, paneId).catch(() => "");
  if (reply.startsWith("OK /")) {
    // `.`, not `source`: dash has only `.`, and the file itself tells a shell that is not zsh.
    // --quiet: the assignment lasts for the `.` only, and helper.sh reads it (no notices).
    console.log(`${quiet ? "_tmux_mcp_quiet=1 " : ""}. '${reply.slice(3)}'`);
    return 0;
  }
  if (reply === "NO already-enrolled") {
    console.error(
      'tmux-mcp: nothing to do: this pane is already enrolled (eval "$(tmux-mcp leave)" ' +
        "takes it back)",
    );
    return 1;
  }
  const reason = REFUSALS[reply.slice(3)] ?? "the server refused or did not answer";
  console.error(`tmux-mcp: not enrolled: ${reason}`);
  return 1;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(word) ? word : shellQuote(word);
}

/**
 * The exact line a person types in a pane to lend it to this server, written the way this
 * process was started: a compiled binary by its path, otherwise this Deno running our main
 * module (a path or a URL). `--server` names this process, so other servers never answer, and
 * `--directory` its private directory, so the pane finds it whatever its own XDG_RUNTIME_DIR
 * and TMPDIR.
 */
export function enrollCommandLine(
  directory: string,
  mainModule = Deno.mainModule,
  execPath = Deno.execPath(),
  pid = Deno.pid,
): string {
  const main = mainModule.startsWith("file:")
    ? decodeURIComponent(new URL(mainModule).pathname)
    : mainModule;
  const program = mainModule.includes("/deno-compile-")
    ? [execPath]
    : [execPath, "run", "-A", main];
  const words = [...program, "enroll", "--server", String(pid), "--directory", directory];
  return `eval "$(${words.map(shellWord).join(" ")})"`;
}

/**
 * The line that undoes an enrollment, for `eval "$(tmux-mcp leave)"` in the enrolled pane. Its
 * first test parses in bash and dash as well, which are told in one line, with status 1, that
 * only zsh is ever enrolled.
 */
export function leaveLine(): string {
  return `if [ -z "\${ZSH_VERSION-}" ]; then echo "tmux-mcp: this shell is not zsh, and only ` +
    `zsh is ever enrolled: nothing to leave" >&2; false; ` +
    `elif (( $+functions[_tmux_mcp_retire] )); then _tmux_mcp_retire; ` +
    `print "tmux-mcp: this pane is no longer enrolled"; ` +
    `else print -u2 "tmux-mcp: this pane is not enrolled"; fi`;
}
