// Runs a command the agent wrote in a pane whose foreground process is a POSIX shell, and
// reports its exit status. The command travels as one single-quoted `eval` argument through a
// tmux paste buffer, so quotes, heredocs, tabs and non-ASCII arrive intact and a syntax error
// still reaches the status line; it runs in a subshell, so `exit N` reports N and the pane's
// shell survives (and `cd` or `export` do not persist). The shell prints a start and an end
// marker from two pieces (`__MCP_S''TART_ID`), so the typed line never contains a marker and its
// echo cannot end the wait; the ID is random per call and no shell variable is assigned. The end
// marker cannot be forged by a program in the pane (one printing the markers it saw, or the real
// ID's end with status 0 while the command exits 9): it carries a per-run secret that is never on
// the screen, since whatever is typed is echoed there. The secret waits in a file of the server's
// private directory; the typed line opens it on descriptor 9 for its group, removes it before
// the command runs, closes 9 for the command's subshell and reads it into the end marker only
// after the command ended, so the command never has the file, the descriptor or the text (only
// the shell's own /proc entry, which a program of this user that sets out to can always read).
// The server knows the IDs (and secrets) it issued per pane's shell; wait_for_command refuses any
// other. Calls on one pane are serialised; a timeout says the command may still be running,
// because it may, and the next call refuses until that run is over, since a line typed while it
// reads input would become its input. Text a person left at the prompt is refused too: the
// server remembers the prompt the shell drew left of the cursor after its last run and compares
// the line with it, leaving room for a right prompt and for a clock that ticks between looks.
// What the line holds and the markers are decided in lib/tmux/shell_line.ts; the wait for a
// run's end and the result both tools give are lib/tools/_command_end.ts.
import { pasteIntoPane } from "../tmux/paste.ts";
import { LOOK_HISTORY_LINES, snapshot } from "../tmux/capture.ts";
import { cursorGridLine } from "../tmux/since.ts";
import { containsCaller } from "../tmux/caller.ts";
import {
  endMarker,
  issue,
  ISSUED_KEPT,
  lineState,
  markers,
  type ShellRun,
  typedLine,
} from "../tmux/shell_line.ts";
import { randomHex } from "../util/ids.ts";
import { boolean, type Static, string, toolInput } from "../mcp/json_schema.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "./context.ts";
import { clientFor } from "../tmux/targets.ts";
import { socketPath, type TmuxClient } from "../tmux/tmux.ts";
import { problemOf, TempDirectoryError, type TempPlace } from "../host/directory_problems.ts";
import type { TempFiles } from "../host/temp_files.ts";
import { type Refusal, refusal, type ToolPayload } from "../mcp/tool_payload.ts";
import { defineTool, READ_ONLY } from "./_define.ts";
import { MAX_LINES, PANE_ID, SOCKET_NAME } from "./_blocks.ts";
import { keepCursor } from "./_cursors.ts";
import { CANCELLED, failedStep } from "./_refusals.ts";
import { directoryRefusal, refusalOf } from "./_tmux_refusals.ts";
import { TIMEOUT, withinTimeout } from "./_waits.ts";
import { watchOutput } from "../tmux/output_watch.ts";
import {
  type AfterTyping,
  AS_IT_COMES,
  awaitEnd,
  finished,
  RUN_COMMAND_OUTPUT,
} from "./_command_end.ts";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);

export const NOT_A_SHELL = refusal(
  "not_a_shell",
  "the pane's foreground process is not a POSIX shell (a program, REPL, editor or pager is " +
    "running); nothing was typed. Use send_keys for programs, or wait until the shell is back",
);
const CALLER_PANE = refusal(
  "caller_pane",
  "run_command does not type into the pane this MCP server runs in",
);
const PANE_DEAD = refusal("pane_dead", "the pane's process has exited; use respawn_pane");

function unfinished(paneId: string) {
  return refusal(
    "unfinished_command",
    `a command run_command typed into pane ${paneId} earlier has not finished (its end marker ` +
      "never appeared): it may still be running or waiting for input, and a new line would " +
      "become its input; nothing was typed. Wait for it with wait_for_text or capture_since, " +
      "or stop it with send_keys C-c (literal: false), then call again",
  );
}

function halfTyped(paneId: string) {
  return refusal(
    "line_not_empty",
    `the shell's command line in pane ${paneId} already holds text (someone typed at the ` +
      "prompt and did not press Enter); nothing was typed, since it would run together with " +
      "that text. Ask the person to finish or clear the line, then call again",
  );
}

/**
 * Writes `run`'s secret into a new file of the server's private directory (mode 0600, never a
 * file that was there), for the typed line to read and remove; its path, or the refusal.
 */
async function secretFile(
  files: TempFiles,
  run: ShellRun,
): Promise<{ ok: true; path: string } | Refusal> {
  const purpose = "run's end marker";
  let place: TempPlace;
  try {
    place = await files.place();
  } catch (error) {
    if (error instanceof TempDirectoryError) return directoryRefusal(error, purpose);
    throw error;
  }
  const path = `${place.path}/run-${run.id}`;
  try {
    await Deno.writeFile(path, new TextEncoder().encode(run.secret), {
      createNew: true,
      mode: 0o600,
    });
  } catch (error) {
    return directoryRefusal(new TempDirectoryError(place, problemOf(error)), purpose);
  }
  return { ok: true, path };
}

const RUN_COMMAND_INPUT = toolInput(["pane_id", "command"], {
  pane_id: PANE_ID,
  command: string({
    minLength: 1,
    maxLength: 65536,
    pattern: "^[^\\u0000]*$",
    description: "the shell command line; several lines and heredocs are fine",
  }),
  timeout: TIMEOUT,
  suppress_history: boolean({
    description: "a leading space keeps it out of history, best effort (default true)",
  }),
  max_lines: MAX_LINES,
  socket_name: SOCKET_NAME,
});

type RunArgs = Static<typeof RUN_COMMAND_INPUT>;

export const runCommandTool = runCommandToolWith(AS_IT_COMES);

/** run_command with its steps after typing awaited through `afterTyping`. */
export function runCommandToolWith(afterTyping: AfterTyping): ToolDefinition {
  return defineTool({
    name: "run_command",
    title: "Run a shell command",
    toolset: "execute",
    description:
      "Run a command you wrote in a pane at a POSIX shell prompt (sh, bash, dash, zsh, ksh), " +
      "wait, and get exit_status and output (read from the screen and the last " +
      `${LOOK_HISTORY_LINES} history lines). It runs in a subshell: exit N reports N; cd and ` +
      "export do not persist. Refused, nothing typed, when another program is in the " +
      "foreground, an earlier run_command has not ended or text sits at the prompt. A longer " +
      "timeout is clamped; on timeout the command may still run: wait_for_command waits again. " +
      "A failure with delivery possibly_sent may have typed it: look before retrying. " +
      "For a TUI or REPL use send_keys; in an enrolled pane prefer tmux_run.",
    inputSchema: RUN_COMMAND_INPUT,
    outputSchema: RUN_COMMAND_OUTPUT,
    annotations: {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    },
    handle: (context, a, extra) =>
      onShellLine(
        context,
        a,
        extra,
        (client, key, bound) => runCommand(context, client, key, a, extra, bound, afterTyping),
      ),
  });
}

/** The call's timeout and the signal that ends its tmux commands by then (withinTimeout). */
type Bound = { timeout: number; signal: AbortSignal };

/**
 * A call on a pane's shell line (`key`): one at a time per line, and every tmux command of it
 * ended by its timeout, even when tmux stops answering.
 */
function onShellLine(
  context: ServerContext,
  a: { socket_name?: string; pane_id: string; timeout?: number },
  extra: ToolExtra,
  call: (client: TmuxClient, key: string, bound: Bound) => Promise<ToolPayload>,
): Promise<ToolPayload> {
  const client = clientFor(context, a.socket_name);
  const key = `${socketPath(client.socket)}\n${a.pane_id}`;
  const bounded = () =>
    withinTimeout(context, a.timeout, extra, (bound) => call(client, key, bound));
  return context.shellLines.serialised(key, bounded);
}

async function runCommand(
  context: ServerContext,
  client: TmuxClient,
  key: string,
  a: RunArgs,
  extra: ToolExtra,
  { timeout, signal }: Bound,
  afterTyping: AfterTyping,
): Promise<ToolPayload> {
  // One look gives the process, the cursor and the screen, all of the same instant, and the
  // history lines an earlier run's end marker may be in.
  const before = await snapshot(client, a.pane_id, signal)
    .catch((error: unknown) => failedStep(error, extra, client, "not_sent"));
  if (extra.signal.aborted) return CANCELLED;
  if (!before.ok) return refusalOf(before);
  if (before.value.dead) return PANE_DEAD;
  if (!SHELLS.has(before.value.currentCommand.replace(/^-/, ""))) return NOT_A_SHELL;
  if (await containsCaller(context, client, "pane", a.pane_id) !== "not_ours") return CALLER_PANE;
  const record = context.shellLines.record(key, before.value.panePid);
  const line = lineState(record, before.value);
  if (line === "unfinished") return unfinished(a.pane_id);
  if (line === "half_typed") return halfTyped(a.pane_id);
  const run = { id: randomHex(8), secret: randomHex(8) };
  const file = await secretFile(context.tempFiles, run);
  if (!file.ok) return file;
  const typed = typedLine(a.command, run.id, file.path, a.suppress_history ?? true);
  const cursor = keepCursor(context, client, before.value, typed);
  const output = watchOutput(client, a.pane_id);
  const spotting = await output.spot(endMarker(run.id), signal);
  let sentAtAll = false;
  try {
    const sent = await pasteIntoPane(
      client,
      context.tempFiles,
      a.pane_id,
      typed,
      { bracketed: true, enter: true },
      signal,
    ).catch((error: unknown) => failedStep(error, extra, client, "possibly_sent"));
    const refused = sent.ok ? null : refusalOf(sent);
    sentAtAll = refused === null || refused.error.delivery !== "not_sent";
    if (sentAtAll) issue(record, run);
    if (refused) return refused;
    // Until its end marker shows, this run holds the line (whatever ends this call).
    record.unfinished = { run, typedAt: cursorGridLine(before.value) };
    const watch = { output, spotting, afterTyping };
    const end = await awaitEnd(client, a.pane_id, run, record, watch, timeout, extra, signal);
    return finished(end, a.max_lines, timeout, { cursor, commandId: run.id });
  } finally {
    spotting?.stop();
    // A line never typed leaves its secret behind: nothing else removes it.
    if (!sentAtAll) await Deno.remove(file.path).catch(() => {});
  }
}

const WAIT_FOR_COMMAND_INPUT = toolInput(["pane_id", "command_id"], {
  pane_id: PANE_ID,
  command_id: string({
    pattern: "^[0-9a-f]{16}$",
    description: "what the run_command that timed out returned",
  }),
  timeout: TIMEOUT,
  max_lines: MAX_LINES,
  socket_name: SOCKET_NAME,
});

type WaitForCommandArgs = Static<typeof WAIT_FOR_COMMAND_INPUT>;

function unknownCommand(paneId: string) {
  return refusal(
    "unknown_command",
    `\`command_id\` names no run_command this server typed into pane ${paneId}'s shell whose ` +
      "start or end can still be found there (ids are known per pane's shell: another pane's, " +
      "one from before this server restarted or the pane was respawned, one more than " +
      `${ISSUED_KEPT} runs ago, or one printed by a program are not; or its lines left the ` +
      `history or are more than ${LOOK_HISTORY_LINES} lines above the screen); nothing was ` +
      "read. Read the pane with capture_pane",
  );
}

export const waitForCommandTool = defineTool({
  name: "wait_for_command",
  title: "Wait for a timed-out command",
  toolset: "inspect",
  description:
    "Wait again for a run_command that timed out, by its command_id, and get exit_status and " +
    "output as run_command would. A longer timeout is clamped; timing out again returns the " +
    `output so far and the same command_id. Only the last ${ISSUED_KEPT} ids this server ` +
    "gave for that pane are known. For other programs' output use wait_for_text.",
  inputSchema: WAIT_FOR_COMMAND_INPUT,
  outputSchema: RUN_COMMAND_OUTPUT,
  annotations: { ...READ_ONLY, idempotentHint: false },
  handle: (context, a, extra) =>
    onShellLine(
      context,
      a,
      extra,
      (client, key, bound) => waitForCommand(context, client, key, a, extra, bound),
    ),
});

async function waitForCommand(
  context: ServerContext,
  client: TmuxClient,
  key: string,
  a: WaitForCommandArgs,
  extra: ToolExtra,
  { timeout, signal }: Bound,
): Promise<ToolPayload> {
  const output = watchOutput(client, a.pane_id);
  const spotting = await output.spot(endMarker(a.command_id), signal);
  try {
    const look = await snapshot(client, a.pane_id, signal)
      .catch((error: unknown) => failedStep(error, extra, client, "not_sent"));
    if (extra.signal.aborted) return CANCELLED;
    if (!look.ok) return refusalOf(look);
    const record = context.shellLines.record(key, look.value.panePid);
    const secret = record.issued.get(a.command_id);
    if (secret === undefined) return unknownCommand(a.pane_id);
    const run = { id: a.command_id, secret };
    const seen = markers(look.value.lines, run);
    if (seen.first < 0 && seen.last < 0 && record.unfinished?.run.id !== run.id) {
      return unknownCommand(a.pane_id);
    }
    const watch = { output, spotting, afterTyping: AS_IT_COMES };
    const end = await awaitEnd(client, a.pane_id, run, record, watch, timeout, extra, signal);
    return finished(end, a.max_lines, timeout, { commandId: a.command_id });
  } finally {
    spotting?.stop();
  }
}
