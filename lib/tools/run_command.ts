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
import { pasteIntoPane } from "../tmux/paste.ts";
import {
  bounded,
  cursorGridLine,
  cursorLine,
  DEFAULT_MAX_LINES,
  LOOK_HISTORY_LINES,
  type Snapshot,
  snapshot,
} from "../tmux/capture.ts";
import { containsCaller } from "../tmux/caller.ts";
import { randomHex } from "../util/ids.ts";
import { shellQuote } from "../util/shell_quote.ts";
import {
  boolean,
  enumOf,
  integer,
  nullable,
  number,
  object,
  type Static,
  string,
  toolInput,
} from "../mcp/json_schema.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "./context.ts";
import { clientFor, type Refusal, tempRefusal } from "../tmux/targets.ts";
import { socketPath, type TmuxClient } from "../tmux/tmux.ts";
import { problemOf, TempDirectoryError, type TempPlace } from "../host/directory_problems.ts";
import type { TempFiles } from "../host/temp_files.ts";
import { refusal, success, type ToolPayload } from "../mcp/tool_result.ts";
import { defineTool, READ_ONLY, toolOutput } from "./_define.ts";
import { MAX_LINES, PANE_ID, SOCKET_NAME } from "./_blocks.ts";
import { keepCursor, RESULT_CURSOR } from "./_cursors.ts";
import { CANCELLED, failedStep } from "./_refusals.ts";
import { boundByTimeout, effectiveTimeout, TIMEOUT } from "./_waits.ts";
import { watchOutput } from "../tmux/output_watch.ts";

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);
const POLL_MS = 50;
/**
 * The history lines a look captures above the screen while a run is awaited. The prompt and a
 * finished command's end marker are at the bottom, so a look needs only the recent lines; a
 * capture of the whole history (2000 lines by default) took ~1 ms of each look, one with this
 * window ~0.1 ms. The wider window every other look takes (LOOK_HISTORY_LINES) is captured
 * when this one cannot hold what is needed: a start marker further up, or a timed-out run's
 * partial output.
 */
const RECENT_HISTORY_LINES = 200;
/**
 * While the end marker is watched for in the pane's output (a control connection follows it),
 * a look is taken when it appears and otherwise once per this interval: looking at every write
 * of the echo, the prompt's redraw and the command's output put a capture beside each.
 */
const SPOTTED_LOOK_MS = 250;

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

/** One run's id (in the typed line, on the screen) and secret (in its end marker only). */
type Run = { id: string; secret: string };

/** What run_command knows about a pane's shell line between calls. */
type LineRecord = {
  panePid: number;
  /** The prompt as drawn over an empty line: the text left of the cursor, once seen. */
  prompt: string | null;
  /**
   * A run whose end marker has not appeared, and the grid line it was typed on
   * (lib/tmux/capture.ts), to tell a start marker above a look's window from one not printed.
   */
  unfinished: { run: Run; typedAt: number } | null;
  /** The runs typed into this shell, the last ISSUED_KEPT, by id: their secrets. */
  issued: Map<string, string>;
};

/** The runs a pane's record keeps, so wait_for_command knows their ids and secrets. */
const ISSUED_KEPT = 32;

const lineRecords = new Map<string, LineRecord>();
/** Panes remembered at most; the least recently used one is forgotten first. */
const MAX_LINE_RECORDS = 1024;

/** The record for the pane's current shell process; a respawned pane starts afresh. */
function lineRecord(key: string, shot: Snapshot): LineRecord {
  let record = lineRecords.get(key);
  lineRecords.delete(key);
  if (!record || record.panePid !== shot.panePid) {
    record = { panePid: shot.panePid, prompt: null, unfinished: null, issued: new Map() };
  }
  lineRecords.set(key, record);
  for (const oldest of lineRecords.keys()) {
    if (lineRecords.size <= MAX_LINE_RECORDS) break;
    lineRecords.delete(oldest);
  }
  return record;
}

/**
 * A prompt with every digit alike: a clock in a prompt ticks between two looks (a live one is
 * redrawn every second), and a prompt that only changed its digits is still the known prompt.
 */
function promptShape(text: string): string {
  return text.trimEnd().replace(/\d/g, "0");
}

/**
 * Whether the line is free to type on: no earlier run of ours still open (its end marker is
 * missing and the prompt has not come back) and nothing typed at the prompt. The known prompt
 * is what was left of the cursor over an empty line; the rest of the row may hold a right
 * prompt (zsh's RPROMPT, a theme's segments, a clock), which zsh draws only with at least one
 * blank cell after the line's text. So the line is empty when the known prompt is left of the
 * cursor and the cell at the cursor is blank, and it holds typed text when more than the prompt
 * is left of the cursor or a character sits at the cursor (the text with the cursor moved back
 * to its start). A row with nothing on it at all holds nothing typed either (a slow prompt not
 * drawn yet). With no prompt known yet (the first run in this shell), or a row that does not
 * begin with the known prompt (it changed: a new directory, a theme's state), the line as it
 * stands is taken as the prompt.
 */
function lineRefusal(record: LineRecord, shot: Snapshot, paneId: string): ToolPayload | null {
  const row = cursorLine(shot);
  const prompt = record.prompt === null ? null : promptShape(record.prompt);
  const left = promptShape(row.beforeCursor);
  const atPrompt = atKnownPrompt(record, shot);
  if (record.unfinished !== null) {
    const { done } = runMarkers(record.unfinished.run);
    if (!atPrompt && !shot.lines.some((line) => done.test(line.trimEnd()))) {
      return unfinished(paneId);
    }
    record.unfinished = null;
  }
  if (prompt === null) {
    record.prompt = row.beforeCursor;
    return null;
  }
  if (atPrompt || row.whole.trim() === "") return null;
  if (prompt !== "" && left.startsWith(prompt)) return halfTyped(paneId);
  record.prompt = row.beforeCursor;
  return null;
}

/** Whether the cursor sits right after the known prompt over an empty line. */
function atKnownPrompt(record: LineRecord, shot: Snapshot): boolean {
  const row = cursorLine(shot);
  return record.prompt !== null && promptShape(row.beforeCursor) === promptShape(record.prompt) &&
    row.whole.charAt(row.beforeCursor.length).trim() === "";
}

/** Promise chains per pane: a second call waits for the first to finish. */
const paneQueues = new Map<string, Promise<unknown>>();

async function serialised<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = paneQueues.get(key) ?? Promise.resolve();
  const current = previous.then(task, task);
  const settled = current.catch(() => {});
  paneQueues.set(key, settled);
  try {
    return await current;
  } finally {
    if (paneQueues.get(key) === settled) paneQueues.delete(key);
  }
}

/** What run `id`'s end marker prints before its exit status, as the screen and output show it. */
function endMarker(id: string): string {
  return `__MCP_DONE_${id}:`;
}

/**
 * The line typed into the shell: the command as one eval word in a subshell between two
 * markers, each written with a quote inside it (`__MCP_S''TART_id`) so that the echo of the line
 * itself never reads as a marker, in a group that holds the run's secret file (`secretFile`) on
 * descriptor 9: it removes the file first, closes 9 for the command and reads the secret after
 * its status (`__MCP_DONE_id:STATUS:SECRET`). `command` keeps an alias (`rm -i`) or a function
 * out of it. It is as short as that allows: zsh reads a bracketed paste a byte at a time, two
 * system calls per byte (`echo` and no spaces took the line for `true` from 117 to 88 bytes;
 * the secret's file, `rm` and `cat` add about 100 and two short processes).
 */
function typedLine(command: string, id: string, secretFile: string, noHistory: boolean): string {
  const file = shellQuote(secretFile);
  return `${noHistory ? " " : ""}{ command rm -f ${file};echo __MCP_S''TART_${id};` +
    `(eval ${shellQuote(command)}) 9<&-;echo __MCP_D''ONE_${id}:$?:$(command cat <&9);} 9<${file}`;
}

/**
 * Writes `run`'s secret into a new file of the server's private directory (mode 0600, never a
 * file that was there), for the typed line to read and remove; its path, or the refusal.
 */
async function secretFile(
  files: TempFiles,
  run: Run,
): Promise<{ ok: true; path: string } | Refusal> {
  const purpose = "run's end marker";
  let place: TempPlace;
  try {
    place = await files.place();
  } catch (error) {
    if (error instanceof TempDirectoryError) return tempRefusal(error, purpose);
    throw error;
  }
  const path = `${place.path}/run-${run.id}`;
  try {
    await Deno.writeFile(path, new TextEncoder().encode(run.secret), {
      createNew: true,
      mode: 0o600,
    });
  } catch (error) {
    return tempRefusal(new TempDirectoryError(place, problemOf(error)), purpose);
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

const RUN_COMMAND_OUTPUT = toolOutput(
  object([
    "exit_status",
    "timed_out",
    "output",
    "encoding",
    "truncated_lines",
    "truncated_bytes",
    "effective_timeout",
    "command_id",
    "note",
  ], {
    exit_status: nullable("integer"),
    timed_out: boolean(),
    output: string(),
    encoding: enumOf(["utf-8", "utf-8-escaped"]),
    truncated_lines: integer({ minimum: 0 }),
    truncated_bytes: integer({ minimum: 0 }),
    effective_timeout: number(),
    command_id: nullable("string"),
    /** run_command's: taken before it typed. */
    cursor: RESULT_CURSOR,
    note: nullable("string"),
  }),
);

type RunArgs = Static<typeof RUN_COMMAND_INPUT>;

/** Each await of a run once its line may have been typed, by name. */
export type RunStep = "spotted" | "look" | "wider look" | "prompt" | "wake";
/**
 * How a run awaits each step once its line may have been typed: the step as it comes, or (a
 * test's seam) a throw at a chosen one, to show that any failure there says `possibly_sent`.
 */
export type AfterTyping = <T>(step: RunStep, pending: () => Promise<T>) => Promise<T>;
const AS_IT_COMES: AfterTyping = (_step, pending) => pending();

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
    handle: (context, a, extra) => {
      const client = clientFor(context, a.socket_name);
      const key = `${socketPath(client.socket)}\n${a.pane_id}`;
      return serialised(key, () => runCommand(context, client, key, a, extra, afterTyping));
    },
  });
}

async function runCommand(
  context: ServerContext,
  client: TmuxClient,
  key: string,
  a: RunArgs,
  extra: ToolExtra,
  afterTyping: AfterTyping,
): Promise<ToolPayload> {
  if (extra.signal.aborted) return CANCELLED;
  const timeout = effectiveTimeout(context, a.timeout);
  // Every tmux command of the call ends by its timeout, even when tmux stops answering.
  const tmuxBound = boundByTimeout(extra.signal, timeout);
  const bound = { timeout, signal: tmuxBound.signal };
  try {
    return await runCommandWithin(context, client, key, a, extra, bound, afterTyping);
  } finally {
    tmuxBound.clear();
  }
}

async function runCommandWithin(
  context: ServerContext,
  client: TmuxClient,
  key: string,
  a: RunArgs,
  extra: ToolExtra,
  { timeout, signal }: { timeout: number; signal: AbortSignal },
  afterTyping: AfterTyping,
): Promise<ToolPayload> {
  // One look gives the process, the cursor and the screen, all of the same instant, and the
  // history lines an earlier run's end marker may be in.
  const before = await snapshot(client, context.tempFiles, a.pane_id, signal)
    .catch((error: unknown) => failedStep(error, extra, client, "not_sent"));
  if (extra.signal.aborted) return CANCELLED;
  if (!before.ok) return before.payload;
  if (before.value.dead) return PANE_DEAD;
  if (!SHELLS.has(before.value.currentCommand.replace(/^-/, ""))) return NOT_A_SHELL;
  if (await containsCaller(context, client, "pane", a.pane_id) !== "not_ours") return CALLER_PANE;
  const record = lineRecord(key, before.value);
  const busyLine = lineRefusal(record, before.value, a.pane_id);
  if (busyLine) return busyLine;
  const run = { id: randomHex(8), secret: randomHex(8) };
  const file = await secretFile(context.tempFiles, run);
  if (!file.ok) return file;
  const line = typedLine(a.command, run.id, file.path, a.suppress_history ?? true);
  const cursor = keepCursor(context, client, before.value, line);
  const output = watchOutput(client, a.pane_id);
  const spotting = await output.spot(endMarker(run.id), signal);
  let typed = false;
  try {
    const sent = await pasteIntoPane(
      client,
      context.tempFiles,
      a.pane_id,
      line,
      { bracketed: true, enter: true },
      signal,
    ).catch((error: unknown) => failedStep(error, extra, client, "possibly_sent"));
    typed = sent.ok || sent.payload.error.delivery !== "not_sent";
    if (typed) issue(record, run);
    if (!sent.ok) return sent.payload;
    // Until its end marker shows, this run holds the line (whatever ends this call).
    record.unfinished = { run, typedAt: cursorGridLine(before.value) };
    const watch = { output, spotting, message: "waiting for the command to finish", afterTyping };
    const end = await awaitEnd(
      context,
      client,
      a.pane_id,
      run,
      record,
      watch,
      timeout,
      extra,
      signal,
    )
      // The line was typed: whatever step fails now says so (possibly_sent).
      .catch((error: unknown) => failedStep(error, extra, client, "possibly_sent"));
    return finished(end, a.max_lines, timeout, { cursor, commandId: run.id });
  } finally {
    spotting?.stop();
    // A line never typed leaves its secret behind: nothing else removes it.
    if (!typed) await Deno.remove(file.path).catch(() => {});
  }
}

/** Records `run` as typed into the record's shell, forgetting the oldest past ISSUED_KEPT. */
function issue(record: LineRecord, run: Run): void {
  record.issued.set(run.id, run.secret);
  for (const oldest of record.issued.keys()) {
    if (record.issued.size <= ISSUED_KEPT) break;
    record.issued.delete(oldest);
  }
}

/** How a run ended, as its markers on screen tell; `status` null when it had not. */
type RunEnd =
  | {
    ok: true;
    status: number | null;
    lines: string[];
    escaped: boolean;
    startLost: boolean;
    /** Out of time, and what the screen shows says an open escape string hid the run. */
    hidden?: true;
  }
  | { ok: false; payload: ToolPayload };

type Watch = {
  output: ReturnType<typeof watchOutput>;
  spotting: Awaited<ReturnType<ReturnType<typeof watchOutput>["spot"]>>;
  message: string;
  afterTyping: AfterTyping;
};

/** The start and end markers of `run`: only the end carries its secret. */
function runMarkers({ id, secret }: Run) {
  return {
    start: new RegExp(`__MCP_START_${id}$`),
    done: new RegExp(`${endMarker(id)}(\\d+):${secret}$`),
  };
}

/** The lines, and where `run`'s last end marker and the start marker before it are. */
function markers(captured: string[], run: Run) {
  const { start, done } = runMarkers(run);
  const all = captured.map((line) => line.trimEnd());
  const last = all.findLastIndex((line) => done.test(line));
  const first = all.findLastIndex((line, index) => start.test(line) && (last < 0 || index < last));
  return { all, first, last };
}

/**
 * Looks at the pane until run `id`'s end marker shows or `timeout` passes, and reads its
 * output between the markers: all of it when it ended, what it printed so far when not.
 */
async function awaitEnd(
  context: ServerContext,
  client: TmuxClient,
  paneId: string,
  run: Run,
  record: LineRecord,
  watch: Watch,
  timeout: number,
  extra: ToolExtra,
  signal: AbortSignal,
): Promise<RunEnd> {
  const { output, spotting, afterTyping } = watch;
  const { done } = runMarkers(run);
  const started = Date.now();
  const deadline = started + timeout * 1000;
  let lastProgress = started;
  let waitedForPrompt = false;
  while (true) {
    if (spotting?.following() && !spotting.spotter.seen) {
      const left = Math.max(0, deadline - Date.now());
      const spotter = spotting.spotter;
      await afterTyping(
        "spotted",
        () => spotter.seenWithin(Math.min(SPOTTED_LOOK_MS, left), signal),
      );
    }
    const outOfTime = Date.now() >= deadline;
    let shot = await afterTyping(
      "look",
      () => snapshot(client, context.tempFiles, paneId, signal, RECENT_HISTORY_LINES),
    );
    if (shot.ok) {
      const seen = markers(shot.value.lines, run);
      // Finished with its start above the window, or out of time: read the wider window.
      if ((seen.last >= 0 && seen.first < 0) || (seen.last < 0 && outOfTime)) {
        shot = await afterTyping(
          "wider look",
          () => snapshot(client, context.tempFiles, paneId, signal),
        );
      }
    }
    if (extra.signal.aborted) return failedStep(null, extra, client, "possibly_sent");
    if (!shot.ok) {
      const error = { ...shot.payload.error, delivery: "possibly_sent" as const };
      return { ok: false, payload: { ...shot.payload, error } };
    }
    const escaped = shot.value.escaped;
    const { all, first, last } = markers(shot.value.lines, run);
    const noOutput = first < 0 && last < 0 && !startAboveWindow(shot.value, record, run.id);
    const lines = noOutput ? [] : all.slice(first + 1, last < 0 ? undefined : last + 1);
    if (last >= 0) {
      // The shell draws its prompt right after the end marker: remember it. A look that came
      // before the prompt was drawn sees an empty line there, so it waits once for the drawing;
      // a prompt still not drawn then (a theme that is slow to build it) leaves the known one.
      const belowMarker = shot.value.historySize + shot.value.cursorY > last;
      const prompt = cursorLine(shot.value).beforeCursor;
      if (belowMarker && prompt === "" && !waitedForPrompt) {
        waitedForPrompt = true;
        await afterTyping("prompt", () => output.wake(POLL_MS, signal));
        continue;
      }
      const status = Number(done.exec(all[last])![1]);
      const printed = [...lines.slice(0, -1), all[last].replace(done, "")];
      if (printed.at(-1) === "") printed.pop();
      if (record.unfinished?.run.id === run.id) record.unfinished = null;
      if (belowMarker && prompt !== "") record.prompt = prompt;
      return { ok: true, status, lines: printed, escaped, startLost: first < 0 };
    }
    if (outOfTime) {
      const hidden = hiddenRun(shot.value, record, run, first, noOutput);
      return { ok: true, status: null, lines, escaped, startLost: false, ...hidden && { hidden } };
    }
    if (extra.progress && Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      extra.progress((lastProgress - started) / 1000, watch.message);
    }
    if (spotting?.following() && !spotting.spotter.seen) continue;
    const rest = Math.min(POLL_MS, Math.max(0, deadline - Date.now()));
    await afterTyping("wake", () => output.wake(rest, signal));
  }
}

/**
 * Whether run `id` was typed above `shot`'s window, so its start marker is too: more lines
 * arrived since than a look holds, and what it holds is the run's latest output. History only
 * loses lines at its top, so a line once at the grid line it was typed on is there or above.
 */
function startAboveWindow(shot: Snapshot, record: LineRecord, id: string): boolean {
  return record.unfinished?.run.id === id && shot.firstLine > record.unfinished.typedAt;
}

/**
 * Whether a run that timed out was hidden by an escape string a program opened and never ended
 * (`ESC ]`, an OSC, without its BEL or `ESC \\`): tmux takes all that follows as the string's
 * text, until a BEL or the next ESC. Two screens say so. Nothing of the run shows, not even its
 * typed line's echo: the string was open before (a prompt without escapes, as dash's, never
 * ends it). Or its start marker shows and the known prompt is back below it with no end marker:
 * the command opened the string, which took the marker, and the prompt's own escapes (zsh's
 * and bash's bracketed paste) ended it.
 */
function hiddenRun(shot: Snapshot, record: LineRecord, run: Run, first: number, noOutput: boolean) {
  if (noOutput) return !shot.lines.some((line) => line.includes(`TART_${run.id}`));
  return first >= 0 && atKnownPrompt(record, shot) && shot.historySize + shot.cursorY > first;
}

const HIDDEN_RUN = "the wait ended without the command's end marker, and the screen says an " +
  "unterminated escape string (an OSC: ESC ] without its ending BEL) hid it: a program in " +
  "the pane or the command printed one, and tmux takes all that follows as its text until a " +
  "BEL or the next escape. If the prompt is not back, clear it by typing printf '\\a' and " +
  "Enter with send_keys (or reset); what was written meanwhile is lost";

/** The tool result for how run `id` ended (run_command's and wait_for_command's shape). */
function finished(
  end: RunEnd,
  maxLines: number | undefined,
  timeout: number,
  extra: { cursor?: string; commandId: string },
): ToolPayload {
  if (!end.ok) return end.payload;
  const timedOut = end.status === null;
  const text = bounded(end.lines, maxLines ?? DEFAULT_MAX_LINES, end.escaped);
  return success({
    exit_status: end.status,
    timed_out: timedOut,
    output: text.text,
    encoding: text.encoding,
    truncated_lines: text.truncated_lines,
    truncated_bytes: text.truncated_bytes,
    effective_timeout: timeout,
    command_id: timedOut ? extra.commandId : null,
    ...(extra.cursor === undefined ? {} : { cursor: extra.cursor }),
    note: end.hidden
      ? HIDDEN_RUN
      : timedOut
      ? "the wait ended, not the command: it may still be running in the pane; wait_for_command " +
        "with command_id waits for it again, and the next run_command here is refused until " +
        "it ends or is stopped (send_keys C-c, literal: false)"
      : end.startLost
      ? "the beginning of the output is gone from the pane's history, or more than " +
        `${LOOK_HISTORY_LINES} lines above the screen`
      : null,
  });
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
  handle: (context, a, extra) => {
    const client = clientFor(context, a.socket_name);
    const key = `${socketPath(client.socket)}\n${a.pane_id}`;
    return serialised(key, () => waitForCommand(context, client, key, a, extra));
  },
});

async function waitForCommand(
  context: ServerContext,
  client: TmuxClient,
  key: string,
  a: WaitForCommandArgs,
  extra: ToolExtra,
): Promise<ToolPayload> {
  if (extra.signal.aborted) return CANCELLED;
  const timeout = effectiveTimeout(context, a.timeout);
  const tmuxBound = boundByTimeout(extra.signal, timeout);
  const signal = tmuxBound.signal;
  const output = watchOutput(client, a.pane_id);
  const spotting = await output.spot(endMarker(a.command_id), signal);
  try {
    const look = await snapshot(client, context.tempFiles, a.pane_id, signal)
      .catch((error: unknown) => failedStep(error, extra, client, "not_sent"));
    if (extra.signal.aborted) return CANCELLED;
    if (!look.ok) return look.payload;
    const record = lineRecord(key, look.value);
    const secret = record.issued.get(a.command_id);
    if (secret === undefined) return unknownCommand(a.pane_id);
    const run = { id: a.command_id, secret };
    const seen = markers(look.value.lines, run);
    if (seen.first < 0 && seen.last < 0 && record.unfinished?.run.id !== run.id) {
      return unknownCommand(a.pane_id);
    }
    const watch = {
      output,
      spotting,
      message: "waiting for the command to finish",
      afterTyping: AS_IT_COMES,
    };
    const end = await awaitEnd(
      context,
      client,
      a.pane_id,
      run,
      record,
      watch,
      timeout,
      extra,
      signal,
    ).catch((error: unknown) => failedStep(error, extra, client, "possibly_sent"));
    return finished(end, a.max_lines, timeout, { commandId: a.command_id });
  } finally {
    spotting?.stop();
    tmuxBound.clear();
  }
}
