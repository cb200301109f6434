// Observing output produced elsewhere: capture_since for repeated looks with a cursor, and
// wait_for_text for "tell me when this appears". Both read only what arrived after a cursor,
// so text already on screen (or typed before the wait) never matches. Waits are clamped to the
// server's ceiling, look again only when the pane writes while a control connection is open
// (lib/tmux/output_watch.ts; polling without one), and report progress while they last.
import { LOOK_HISTORY_LINES, type Snapshot, snapshot } from "../tmux/capture.ts";
import { bounded, DEFAULT_MAX_LINES } from "../tmux/bounded_text.ts";
import { type Cursor, cursorAt, since } from "../tmux/since.ts";
import { withoutEcho } from "../tmux/input_echo.ts";
import {
  array,
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
import type { ServerContext, ToolExtra } from "./context.ts";
import { clientFor } from "../tmux/targets.ts";
import { success, type ToolPayload } from "../mcp/tool_payload.ts";
import { defineTool, READ_ONLY, toolOutput } from "./_define.ts";
import { MAX_LINES, PANE_ID, SOCKET_NAME } from "./_blocks.ts";
import { CURSOR, findCursor, keepCursor, RESULT_CURSOR } from "./_cursors.ts";
import { CANCELLED, failedStep, INVALID_PATTERN, UNSUPPORTED_PATTERN } from "./_refusals.ts";
import { refusalOf } from "./_tmux_refusals.ts";
import { boundByTimeout, effectiveTimeout, TIMEOUT } from "./_waits.ts";
import { CallProgress, PROGRESS_INTERVAL_MS } from "./_progress.ts";
import { watchOutput } from "../tmux/output_watch.ts";
import { type LineFinder, lineFinder, type LineMatch, pacer } from "../util/line_patterns.ts";

/**
 * Without a control connection a wait asks tmux every 40 ms whether the pane changed and looks
 * when it did (lib/tmux/output_watch.ts); it looks anyway this often, for a row rewritten in
 * place that moved nothing the question asks about.
 */
const POLL_MS = 500;

const CAPTURE_SINCE_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
  cursor: CURSOR,
  max_lines: MAX_LINES,
});

const CAPTURE_SINCE_OUTPUT = toolOutput(
  object([
    "text",
    "encoding",
    "truncated_lines",
    "truncated_bytes",
    "cursor",
    "lines_missed",
    "missed_reason",
    "redraw",
  ], {
    text: string(),
    encoding: enumOf(["utf-8", "utf-8-escaped"]),
    truncated_lines: integer({ minimum: 0 }),
    truncated_bytes: integer({ minimum: 0 }),
    cursor: RESULT_CURSOR,
    lines_missed: boolean(),
    missed_reason: enumOf([null, "respawned", "history_changed"]),
    redraw: boolean({
      description: "true when a full-screen program switched the screen or redrew it: text " +
        "is then the current screen, not lines added since the cursor",
    }),
  }),
);

export const captureSinceTool = defineTool({
  name: "capture_since",
  title: "New pane output since a cursor",
  toolset: "inspect",
  description:
    "Watch a pane across calls: without a cursor, the screen and a cursor; with one, the " +
    `lines since, from the screen and last ${LOOK_HISTORY_LINES} history lines (lines_missed ` +
    "if the cursor is further back or history was trimmed; after a full-screen program, the " +
    "screen with redraw: true). To block until text appears use wait_for_text.",
  inputSchema: CAPTURE_SINCE_INPUT,
  outputSchema: CAPTURE_SINCE_OUTPUT,
  annotations: { ...READ_ONLY, idempotentHint: false },
  handle: async (context, a, extra) => {
    const client = clientFor(context, a.socket_name);
    const kept = a.cursor === undefined ? null : findCursor(context, client, a.pane_id, a.cursor);
    if (kept && !kept.ok) return kept.payload;
    const shot = await snapshot(client, a.pane_id, extra.signal);
    if (!shot.ok) return refusalOf(shot);
    const s = shot.value;
    const seen = kept ? since(s, kept.kept.cursor) : {
      lines: s.lines.slice(s.historySize),
      firstColumn: 0,
      linesMissed: false,
      reason: null,
      redraw: false,
    };
    // The first line is returned whole (a prompt stays with the command typed after it), but
    // only when something arrived: an unchanged prompt line is not news.
    const arrived = seen.lines.length > 1 ||
      (seen.lines[0] ?? "").slice(seen.firstColumn).trimEnd() !== "";
    return success({
      ...bounded(arrived ? seen.lines : [], a.max_lines ?? DEFAULT_MAX_LINES, s.escaped),
      cursor: keepCursor(context, client, s),
      lines_missed: seen.linesMissed,
      missed_reason: seen.reason,
      redraw: seen.redraw,
    });
  },
});

type Hit = LineMatch & { line: number; which: number };

/**
 * The earliest hit (by line, then column) among `finders`, with which finder produced it.
 * Between lines it lets other calls run (`pace`), however many lines arrived.
 */
async function earliest(
  finders: LineFinder[],
  lines: string[],
  pace: () => Promise<void>,
): Promise<Hit | null> {
  for (const [line, text] of lines.entries()) {
    await pace();
    let best: Hit | null = null;
    for (const [which, find] of finders.entries()) {
      const hit = find(text);
      if (hit && (!best || hit.index < best.index)) best = { ...hit, line, which };
    }
    if (best) return best;
  }
  return null;
}

const LAST_LINES = 20;

/** The last lines the screen shows (up to the cursor), so a timeout shows what the pane did. */
function lastLines(shot: Snapshot): string {
  const screen = shot.lines.slice(shot.historySize, shot.historySize + shot.cursorY + 1)
    .map((line) => line.trimEnd());
  while (screen.length > 0 && screen.at(-1) === "") screen.pop();
  return bounded(screen, LAST_LINES, shot.escaped).text;
}

const WAIT_FOR_TEXT_INPUT = toolInput(["pane_id", "patterns"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
  patterns: array({
    minItems: 1,
    maxItems: 16,
    items: string({ minLength: 1, maxLength: 1024 }),
    description: "1 to 16; the wait ends when a line of new output matches one",
  }),
  regex: boolean({
    description: "JavaScript regexes, ^ and $ anchoring a line, no lookahead or " +
      "backreferences (default false: literal)",
  }),
  ignore_case: boolean({
    description: "ignore letter case (default false)",
  }),
  stop: array({
    minItems: 0,
    maxItems: 16,
    items: string({ minLength: 1, maxLength: 1024 }),
    description: "patterns that end the wait with outcome stopped; default none",
  }),
  timeout: TIMEOUT,
  cursor: CURSOR,
  max_lines: MAX_LINES,
});

const WAIT_FOR_TEXT_OUTPUT = toolOutput(
  object([
    "outcome",
    "matched_text",
    "pattern_index",
    "text_since_cursor",
    "text_truncated",
    "effective_timeout",
    "cursor",
    "lines_missed",
    "last_lines",
  ], {
    outcome: enumOf(["matched", "stopped", "timeout", "pane_dead"]),
    matched_text: nullable("string"),
    pattern_index: nullable("integer"),
    text_since_cursor: string({
      description: "the output that arrived after the cursor, without the echo of the input " +
        "typed right after it: up to the matched line (excluded), or all of it on timeout or " +
        "pane_dead; the last max_lines lines and 256 KiB",
    }),
    text_truncated: boolean({ description: "true when text_since_cursor lost its beginning" }),
    effective_timeout: number(),
    cursor: nullable("string"),
    lines_missed: boolean(),
    last_lines: nullable("string"),
  }),
);

export const waitForTextTool = defineTool({
  name: "wait_for_text",
  title: "Wait for text in a pane",
  toolset: "inspect",
  description:
    "Wait until NEW output in a pane (after the cursor, or the call's start) matches a " +
    "pattern; pass the cursor send_keys, paste_text or run_command returned. Looks read the " +
    `screen and last ${LOOK_HISTORY_LINES} history lines (lines_missed beyond). Returns the ` +
    "outcome, matched line and text_since_cursor; on timeout, last_lines. A longer timeout " +
    "is clamped. For a command's exit status use run_command.",
  inputSchema: WAIT_FOR_TEXT_INPUT,
  outputSchema: WAIT_FOR_TEXT_OUTPUT,
  annotations: { ...READ_ONLY, idempotentHint: false },
  handle: (context, a, extra) => waitForText(context, a, extra),
});

type WaitArgs = Static<typeof WAIT_FOR_TEXT_INPUT>;

/** The output between the cursor and line `end` (all of it when absent), bounded. */
function textBefore(lines: string[], end: number | undefined, maxLines: number, escaped: boolean) {
  const kept = lines.slice(0, end).map((line) => line.trimEnd());
  // The cursor's own row holds nothing new when the output began on the next one.
  if (kept.length > 0 && kept[0] === "") kept.shift();
  const text = bounded(kept, maxLines, escaped);
  return {
    text_since_cursor: text.text,
    text_truncated: text.truncated_lines > 0 || text.truncated_bytes > 0,
  };
}

async function waitForText(
  context: ServerContext,
  a: WaitArgs,
  extra: ToolExtra,
): Promise<ToolPayload> {
  const options = { regex: a.regex ?? false, ignoreCase: a.ignore_case ?? false };
  const compiled = await Promise.all(
    [...a.patterns, ...a.stop ?? []].map((pattern) => lineFinder(pattern, options)),
  );
  // pattern_index counts every pattern, so one that cannot be used refuses the whole call.
  if (compiled.includes("unsupported")) return UNSUPPORTED_PATTERN;
  const finders = compiled.filter((find) => typeof find === "function");
  if (finders.length < compiled.length) return INVALID_PATTERN;
  const matchers = finders.slice(0, a.patterns.length);
  const stoppers = finders.slice(a.patterns.length);
  const client = clientFor(context, a.socket_name);
  const kept = a.cursor === undefined ? null : findCursor(context, client, a.pane_id, a.cursor);
  if (kept && !kept.ok) return kept.payload;
  let cursor: Cursor | undefined = kept?.kept.cursor;
  let typed = kept?.kept.typed ?? null;
  const maxLines = a.max_lines ?? DEFAULT_MAX_LINES;
  const timeout = effectiveTimeout(context, a.timeout);
  // Every tmux command of the wait ends by its timeout, even when tmux stops answering.
  const tmuxBound = boundByTimeout(extra.signal, timeout);
  const signal = tmuxBound.signal;
  const output = watchOutput(client, a.pane_id);
  const started = Date.now();
  const deadline = started + timeout * 1000;
  // The first report comes right after the first look, so a client knows the wait has begun;
  // then one a second from a timer, since a quiet pane wakes no look.
  let reporting: ReturnType<typeof setInterval> | undefined;
  const progress = new CallProgress(extra.progress);
  const report = () => progress.say("waiting for text");
  let linesMissed = false;
  let arrived: string[] = [];
  let lastShot: Snapshot | null = null;
  const result = (
    outcome: string,
    hit: { text: string; which: number; line: number } | null,
    shot: Snapshot,
  ) =>
    success({
      outcome,
      matched_text: hit ? arrived[hit.line].trimEnd() : null,
      pattern_index: hit?.which ?? null,
      ...textBefore(arrived, hit?.line, maxLines, shot.escaped),
      effective_timeout: timeout,
      cursor: keepCursor(context, client, shot),
      lines_missed: linesMissed,
      last_lines: outcome === "timeout" || outcome === "pane_dead" ? lastLines(shot) : null,
    });
  try {
    while (true) {
      if (extra.signal.aborted) return CANCELLED;
      const shot = await snapshot(client, a.pane_id, signal)
        .catch((error: unknown) => failedStep(error, extra, client, "not_sent"));
      // Only the caller's own cancel is a cancel; anything else is said as what it is.
      if (extra.signal.aborted) return CANCELLED;
      // tmux did not answer within the wait's time: the wait timed out, with its last look.
      const late = !shot.ok && refusalOf(shot).error.code === "tmux_not_answering";
      if (late && lastShot) return result("timeout", null, lastShot);
      if (!shot.ok) {
        if (cursor && "failure" in shot && shot.failure.kind === "not_found") {
          return success({
            outcome: "pane_dead",
            matched_text: null,
            pattern_index: null,
            ...textBefore(arrived, undefined, maxLines, false),
            effective_timeout: timeout,
            cursor: null,
            lines_missed: linesMissed,
            last_lines: null,
          });
        }
        return refusalOf(shot);
      }
      lastShot = shot.value;
      cursor ??= cursorAt(shot.value);
      const seen = since(shot.value, cursor);
      linesMissed ||= seen.linesMissed;
      // Only what arrived counts: the first line from the cursor's column on, less any echo.
      arrived = typed === null ? seen.arrived : withoutEcho(seen.arrived, typed);
      // One look's matching is one stretch (line_patterns.ts `pacer`): a pacer kept across
      // looks counted the wait's sleep as matching and put a timer turn (1-2.5 ms) into every
      // wake-up.
      const pace = pacer();
      const hit = await earliest(matchers, arrived, pace);
      const stop = await earliest(stoppers, arrived, pace);
      if (extra.signal.aborted) return CANCELLED;
      const stoppedFirst = stop &&
        (!hit || stop.line < hit.line || (stop.line === hit.line && stop.index < hit.index));
      if (stoppedFirst) return result("stopped", stop, shot.value);
      if (hit) return result("matched", hit, shot.value);
      if (shot.value.dead) return result("pane_dead", null, shot.value);
      if (seen.linesMissed) {
        cursor = cursorAt(shot.value);
        typed = null;
      }
      if (Date.now() >= deadline) return result("timeout", null, shot.value);
      if (progress.wanted && reporting === undefined) {
        report();
        reporting = setInterval(report, PROGRESS_INTERVAL_MS);
      }
      await output.wake(Math.max(0, deadline - Date.now()), signal, POLL_MS);
    }
  } finally {
    clearInterval(reporting);
    tmuxBound.clear();
  }
}

export const WAITING_TOOLS = [captureSinceTool, waitForTextTool];
