// The one way this server runs tmux: an argv through Deno.Command, never a shell string, with
// the socket passed explicitly and TMUX/TMUX_PANE stripped so that a server started inside
// tmux cannot silently talk to the tmux it happens to live in. Every client runs with `-u`:
// MCP clients start servers without a locale, and a tmux client that does not believe in UTF-8
// prints tabs and non-ASCII in `-F` output as `_`, which no parser can undo.
import { concatBytes } from "../util/bytes.ts";
import { identifyGate } from "./identify_gate.ts";
import {
  behaviours,
  type ControlModeChoice,
  parseTmuxVersion,
  type TmuxBehaviours,
  type TmuxVersion,
} from "./versions.ts";

export type { TmuxVersion } from "./versions.ts";

export type SocketChoice = { kind: "default" } | { kind: "name"; name: string } | {
  kind: "path";
  path: string;
};

export type TmuxClient = {
  bin: string;
  socket: SocketChoice;
  /** Whether control mode may be used (versions.ts); "auto" when absent. */
  controlMode?: ControlModeChoice;
  /**
   * The control connections of the MCP server that made this client; without one, the
   * process's own (a lab, a test, a benchmark): lib/tmux/control_servers.ts.
   */
  control?: ControlPool;
};

/**
 * What one owner (an MCP server) keeps per tmux server for its life and closes with it: its
 * control connections (lib/tmux/control_servers.ts keeps them here). A client carries its
 * owner's pool, so a call made for one MCP server never uses, or closes, another's.
 */
export class ControlPool {
  readonly #kept = new Map<string, { close(): Promise<void> }>();

  find(key: string): { close(): Promise<void> } | undefined {
    return this.#kept.get(key);
  }

  keep(key: string, value: { close(): Promise<void> }): void {
    this.#kept.set(key, value);
  }

  /** Closes everything kept, and forgets it: a later use opens afresh. */
  async close(): Promise<void> {
    const all = [...this.#kept.values()];
    this.#kept.clear();
    await Promise.all(all.map((kept) => kept.close()));
  }
}

export type TmuxResult = { code: number; stdout: string; stderr: string };

let cleanEnv: Record<string, string> | undefined;

/** This process's environment without TMUX and TMUX_PANE, for every tmux client it starts. */
export function tmuxEnvironment(): Record<string, string> {
  if (!cleanEnv) {
    const env = Deno.env.toObject();
    delete env.TMUX;
    delete env.TMUX_PANE;
    cleanEnv = env;
  }
  return cleanEnv;
}

/** The global flags of every client: UTF-8 output always, and the socket named explicitly. */
export function clientArgs(socket: SocketChoice): string[] {
  if (socket.kind === "name") return ["-u", "-L", socket.name];
  if (socket.kind === "path") return ["-u", "-S", socket.path];
  return ["-u"];
}

export type RawTmuxResult = { code: number; stdout: Uint8Array; stderr: string };

/**
 * How long one tmux command may go unanswered before it is abandoned. A tmux server that is
 * stopped (SIGSTOP, a debugger) or wedged accepts a client's connection and then never answers,
 * and a client left waiting would hold its tool call until the server resumed. Waits, and the
 * tools that wait for a command, bound their commands by their own timeout instead
 * (lib/tools/_waits.ts).
 */
export const TMUX_ANSWER_SECONDS = 5;

/** A tmux server that did not answer a command in time; the command was abandoned. */
export class TmuxNotAnswering extends Error {
  constructor() {
    super("the tmux server did not answer in time");
  }
}

/**
 * Like runTmux, with stdout as the exact bytes tmux wrote (captures must not lose any). A client
 * that overruns TMUX_ANSWER_SECONDS, or whose signal aborts, is killed with SIGKILL and reaped
 * before this returns: a client waiting on a stopped server handles SIGTERM by telling that
 * server it is leaving and waiting for its reply, so it would outlive the call. Its pipes are
 * then given up rather than read to their end: the client handed them to the server, which
 * holds them until it reads that message.
 */
export async function runTmuxRaw(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<RawTmuxResult> {
  signal?.throwIfAborted();
  const release = await identifyGate(socketPath(client.socket)).shared(signal);
  try {
    return await spawnClient(client, args, signal);
  } finally {
    release();
  }
}

/** One spawned client through to its end, or killed and reaped (see runTmuxRaw). */
async function spawnClient(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<RawTmuxResult> {
  const child = new Deno.Command(client.bin, {
    args: [...clientArgs(client.socket), ...args.map(keepingSemicolon)],
    env: tmuxEnvironment(),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = drain(child.stdout);
  const stderr = drain(child.stderr);
  // The first reason to give the client up wins; later ones change nothing.
  const abandoned = Promise.withResolvers<{ abandoned: unknown }>();
  const abandon = (why: unknown) => abandoned.resolve({ abandoned: why });
  const timer = setTimeout(() => abandon(new TmuxNotAnswering()), TMUX_ANSWER_SECONDS * 1000);
  const onAbort = () => abandon(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const ended = await Promise.race([
      Promise.all([child.status, stdout.bytes, stderr.bytes]),
      abandoned.promise,
    ]);
    if (!("abandoned" in ended)) {
      const [status, out, err] = ended;
      return { code: status.code, stdout: out, stderr: new TextDecoder().decode(err) };
    }
    try {
      child.kill("SIGKILL");
    } catch {
      // It exited in the meantime.
    }
    await child.status;
    await Promise.all([stdout.cancel(), stderr.cancel()]);
    throw ended.abandoned;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * An argument as tmux reads it back from a client's argv: one that ends in `;` ends a command
 * there (cmd_parse_from_arguments), so `echo a;` would arrive as `echo a`, and one that ends in
 * `\;` arrives as ending in `;`. A value that ends in `;` is passed ending in `\;`; a lone `;`
 * stays the separator. (A control client's line quotes every argument: no such rule there.)
 */
function keepingSemicolon(arg: string): string {
  return arg !== ";" && arg.endsWith(";") ? `${arg.slice(0, -1)}\\;` : arg;
}

/** A pipe's bytes up to its end, and a way to give up on the rest. */
function drain(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const bytes = (async () => {
    const chunks: Uint8Array[] = [];
    while (true) {
      const next = await reader.read();
      if (next.done) return concatBytes(chunks);
      chunks.push(next.value);
    }
  })();
  bytes.catch(() => {});
  return { bytes, cancel: () => reader.cancel().catch(() => {}) };
}

export async function runTmux(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxResult> {
  const raw = await runTmuxRaw(client, args, signal);
  return { code: raw.code, stdout: new TextDecoder().decode(raw.stdout), stderr: raw.stderr };
}

/**
 * A tmux server as a message names it: by its socket name (the configuration's or the call's
 * own), never by a path.
 */
export function serverLabel(client: Pick<TmuxClient, "socket">): string {
  if (client.socket.kind === "name") return `the tmux server on socket "${client.socket.name}"`;
  if (client.socket.kind === "path") return "the tmux server at the configured --socket path";
  return "the default tmux server";
}

/** Where tmux puts the socket for this choice, as tmux itself computes it. */
export function socketPath(socket: SocketChoice): string {
  if (socket.kind === "path") return socket.path;
  const dir = Deno.env.get("TMUX_TMPDIR") || "/tmp";
  return `${dir}/tmux-${Deno.uid()}/${socket.kind === "name" ? socket.name : "default"}`;
}

/** Each tmux binary's answer to `-V`, asked once (a failed probe is asked again next time). */
const versions = new Map<string, Promise<TmuxVersion | null>>();

/** The version of the tmux that `client` runs, or null when it cannot be run. */
export function tmuxVersion(client: TmuxClient): Promise<TmuxVersion | null> {
  let probe = versions.get(client.bin);
  if (!probe) {
    probe = runTmux(client, ["-V"]).then(
      (result) => result.code === 0 ? parseTmuxVersion(result.stdout) : null,
      () => null,
    );
    probe.then((found) => found ?? versions.delete(client.bin));
    versions.set(client.bin, probe);
  }
  return probe;
}

/** What this server does on the tmux that `client` runs (versions.ts). */
export async function behavioursOf(client: TmuxClient): Promise<TmuxBehaviours> {
  return behaviours(await tmuxVersion(client), client.controlMode);
}
