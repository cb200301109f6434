// How every benchmark starts the server: as its own process on stdio, the way an MCP client
// does, with tmux_run enabled, each pane invited with its own setup file, and the V8 flags the
// README recommends unless a run names others (`--server-v8-flags=` runs it without any); and
// how a one-pane benchmark lends that pane to it and finds its helper.
import { parseArgs } from "node:util";
import { SERVER_V8_FLAGS } from "../lib/server/server.ts";
import { type PrivateLab, sourceInPane, waitFor, waitForPromptIn } from "../lib/cli/private_lab.ts";
import { childrenOf } from "../lib/host/processes.ts";

const MAIN_PATH = new URL("../main.ts", import.meta.url).pathname;

export { SERVER_V8_FLAGS };

/**
 * A benchmark's command line: `[RUNS] [--server-v8-flags=FLAGS]`, the flags README.md recommends
 * unless named (`--server-v8-flags=` runs the server without any), and RUNS or `defaultRuns`.
 */
export function benchCommandLine(defaultRuns = 0): { v8Flags: string; runs: number } {
  const { values, positionals } = parseArgs({
    options: { "server-v8-flags": { type: "string", default: SERVER_V8_FLAGS } },
    allowPositionals: true,
  });
  return { v8Flags: values["server-v8-flags"], runs: Number(positionals[0] ?? defaultRuns) };
}

/** `deno` arguments for a server bound to `socketName` that invites each [pane, setup file]. */
export function serverArgs(
  socketName: string,
  invitations: [pane: string, setupFile: string][],
  v8Flags: string = SERVER_V8_FLAGS,
): string[] {
  return [
    "run",
    "--allow-all",
    ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
    MAIN_PATH,
    "--socket-name",
    socketName,
    "--enable-tool",
    "tmux_run",
    ...invitations.flatMap(([pane, file]) => ["--enroll-pane", `${pane}=${file}`]),
  ];
}

/** A tool call that answers the tool's `{ok, data}` payload. */
// deno-lint-ignore no-explicit-any
export type CallTool = (name: string, args?: Record<string, unknown>) => Promise<any>;

/**
 * Lends the lab's pane to the server as a person would (`source` its setup file, once the server
 * has written it) and returns the server's generation once tmux_capabilities lists the pane.
 */
export async function enrollLabPane(
  lab: PrivateLab,
  setupFile: string,
  call: CallTool,
): Promise<string> {
  await waitFor("the setup file", () => Deno.stat(setupFile).then(() => true, () => false));
  await sourceInPane(lab, setupFile);
  await waitFor("the pane to be enrolled", async () => {
    return (await call("tmux_capabilities")).data.enrolled_panes.length === 1;
  }, 30_000);
  await waitForPromptIn(lab.tmuxCmd, lab.pane);
  return (await call("tmux_capabilities")).data.generation;
}

/** The helper of the shell in `pane`: the shell's child whose command line names helper.pl. */
export async function helperOfPane(lab: PrivateLab, pane: string): Promise<number> {
  const shell = Number(await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{pane_pid}"));
  for (const pid of await childrenOf(shell)) {
    const argv = await Deno.readTextFile(`/proc/${pid}/cmdline`).catch(() => "");
    if (argv.includes("helper.pl")) return pid;
  }
  throw new Error(`no helper process under the shell of ${pane}`);
}
