// The commit point of tmux_run. One tmux command, run in tmux's single-threaded command queue,
// checks in the same queue turn that the pane is still the enrolled one: same id, same root
// pid, not dead. Only its per-run nonce on stdout grants the run, so a user `command-alias`
// that rebinds the guard's commands can never produce a grant; such an alias is reported.
// The line goes through the control-mode connection when there is one: tmux parses a control
// line into one command list and runs it in one turn of that client's queue, exactly as it does
// a spawned client's argv, and saves the guard a process start.
import { randomHex } from "../util/ids.ts";
import { runTmux, type TmuxClient, TmuxNotAnswering, type TmuxResult } from "../tmux/tmux.ts";
import { controlRun } from "../tmux/control_servers.ts";

export type GuardVerdict = "granted" | "denied" | "aliased";

const GUARD_COMMANDS = ["if-shell", "display-message"];

export function guardPredicate(paneId: string, panePid: number): string {
  const all = (...terms: string[]): string =>
    terms.length === 1 ? terms[0] : `#{&&:${terms[0]},${all(...terms.slice(1))}}`;
  return all(
    `#{==:#{pane_id},${paneId}}`,
    `#{==:#{pane_pid},${panePid}}`,
    "#{==:#{pane_dead_status},}",
    "#{==:#{pane_dead_signal},}",
  );
}

/** Throws (the signal's reason) when the tmux client is aborted while in flight. */
export async function authorize(
  tmux: TmuxClient,
  paneId: string,
  panePid: number,
  signal: AbortSignal,
): Promise<GuardVerdict> {
  const nonce = randomHex();
  const result = await guardCommand(tmux, paneId, [
    "show-options",
    "-s",
    "command-alias",
    ";",
    "if-shell",
    "-F",
    "-t",
    paneId,
    guardPredicate(paneId, panePid),
    `display-message -p ${nonce}`,
  ], signal);
  signal.throwIfAborted();
  const lines = result.stdout.split("\n").filter((line) => line !== "");
  if (rebindsGuard(lines)) return "aliased";
  if (result.code === 0 && lines.at(-1) === nonce) return "granted";
  // An alias can make the whole command list fail to parse, so nothing above ran: look again,
  // on its own, before calling the pane replaced.
  const aliases = await guardCommand(tmux, paneId, ["show-options", "-s", "command-alias"], signal);
  return rebindsGuard(aliases.stdout.split("\n")) ? "aliased" : "denied";
}

/** The guard only reads, so a line lost with its control connection simply runs again. */
async function guardCommand(
  tmux: TmuxClient,
  paneId: string,
  args: string[],
  signal: AbortSignal,
): Promise<TmuxResult> {
  try {
    const viaControl = await controlRun(tmux, paneId, args, signal);
    if (viaControl) return viaControl;
  } catch (error) {
    // A server that did not answer the connection would not answer a spawned client either.
    if (signal.aborted || error instanceof TmuxNotAnswering) throw error;
  }
  return await runTmux(tmux, args, signal);
}

function rebindsGuard(optionLines: string[]): boolean {
  return optionLines.some((line) => {
    const match = /^command-alias\[\d+\] "?([^=]+)=/.exec(line);
    return match !== null && GUARD_COMMANDS.includes(match[1]);
  });
}
