// How a command run_command typed is awaited and answered, shared by run_command and
// wait_for_command: looks at the pane until the run's end marker shows (woken by the pane's
// output when a control connection follows it) or the timeout passes, the output read between
// the markers, and the one result shape both tools give.
import { LOOK_HISTORY_LINES, snapshot } from "../tmux/capture.ts";
import { bounded, DEFAULT_MAX_LINES } from "../tmux/bounded_text.ts";
import { cursorLine } from "../tmux/since.ts";
import {
  hiddenRun,
  type LineRecord,
  markers,
  runMarkers,
  type ShellRun,
  startAboveWindow,
} from "../tmux/shell_line.ts";
import { boolean, enumOf, integer, nullable, number, object, string } from "../mcp/json_schema.ts";
import type { ToolExtra } from "./context.ts";
import type { TmuxClient } from "../tmux/tmux.ts";
import { success, type ToolPayload } from "../mcp/tool_payload.ts";
import { toolOutput } from "./_define.ts";
import { RESULT_CURSOR } from "./_cursors.ts";
import { failedStep } from "./_refusals.ts";
import { CallProgress } from "./_progress.ts";
import { refusalOf } from "./_tmux_refusals.ts";
import type { watchOutput } from "../tmux/output_watch.ts";

export const POLL_MS = 50;
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

export const RUN_COMMAND_OUTPUT = toolOutput(
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

/** Each await of a run once its line may have been typed, by name. */
export type RunStep = "spotted" | "look" | "wider look" | "prompt" | "wake";
/**
 * How a run awaits each step once its line may have been typed: the step as it comes, or (a
 * test's seam) a throw at a chosen one, to show that any failure there says `possibly_sent`.
 */
export type AfterTyping = <T>(step: RunStep, pending: () => Promise<T>) => Promise<T>;
export const AS_IT_COMES: AfterTyping = (_step, pending) => pending();

/** How a run ended, as its markers on screen tell; `status` null when it had not. */
export type RunEnd =
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

export type Watch = {
  output: ReturnType<typeof watchOutput>;
  spotting: Awaited<ReturnType<ReturnType<typeof watchOutput>["spot"]>>;
  afterTyping: AfterTyping;
};

/**
 * Looks at the pane until run `id`'s end marker shows or `timeout` passes, and reads its
 * output between the markers: all of it when it ended, what it printed so far when not. The
 * line was typed: whatever step fails says so (possibly_sent).
 */
export async function awaitEnd(
  client: TmuxClient,
  paneId: string,
  run: ShellRun,
  record: LineRecord,
  watch: Watch,
  timeout: number,
  extra: ToolExtra,
  signal: AbortSignal,
): Promise<RunEnd> {
  try {
    const { output, spotting, afterTyping } = watch;
    const { done } = runMarkers(run);
    const started = Date.now();
    const deadline = started + timeout * 1000;
    const progress = new CallProgress(extra.progress);
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
        () => snapshot(client, paneId, signal, RECENT_HISTORY_LINES),
      );
      if (shot.ok) {
        const seen = markers(shot.value.lines, run);
        // Finished with its start above the window, or out of time: read the wider window.
        if ((seen.last >= 0 && seen.first < 0) || (seen.last < 0 && outOfTime)) {
          shot = await afterTyping(
            "wider look",
            () => snapshot(client, paneId, signal),
          );
        }
      }
      if (extra.signal.aborted) return failedStep(null, extra, client, "possibly_sent");
      if (!shot.ok) {
        const said = refusalOf(shot);
        return {
          ok: false,
          payload: { ...said, error: { ...said.error, delivery: "possibly_sent" } },
        };
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
        return {
          ok: true,
          status: null,
          lines,
          escaped,
          startLost: false,
          ...hidden && { hidden },
        };
      }
      progress.due("waiting for the command to finish");
      if (spotting?.following() && !spotting.spotter.seen) continue;
      const rest = Math.min(POLL_MS, Math.max(0, deadline - Date.now()));
      await afterTyping("wake", () => output.wake(rest, signal));
    }
  } catch (error: unknown) {
    return failedStep(error, extra, client, "possibly_sent");
  }
}

const HIDDEN_RUN = "the wait ended without the command's end marker, and the screen says an " +
  "unterminated escape string (an OSC: ESC ] without its ending BEL) hid it: a program in " +
  "the pane or the command printed one, and tmux takes all that follows as its text until a " +
  "BEL or the next escape. If the prompt is not back, clear it by typing printf '\\a' and " +
  "Enter with send_keys (or reset); what was written meanwhile is lost";

/** The tool result for how run `id` ended (run_command's and wait_for_command's shape). */
export function finished(
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
