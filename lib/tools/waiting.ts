// Observing output produced elsewhere: capture_since for repeated looks with a cursor, and
// wait_for_text for "tell me when this appears". Both read only what arrived after a cursor,
// so text already on screen (or typed before the wait) never matches. Waits are clamped to the
// server's ceiling, poll tmux with short-lived children that the request's cancellation kills,
// wake as soon as the pane writes (lib/tmux_control.ts), and report progress while they last.
import {
  bounded,
  type Cursor,
  cursorAt,
  decodeCursor,
  DEFAULT_MAX_LINES,
  encodeCursor,
  since,
  snapshot,
} from "../capture.ts";
import { schemas } from "../schemas.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "../server_context.ts";
import { clientFor } from "../targets.ts";
import { refusal, success, type ToolPayload } from "../tool_result.ts";
import { READ_ONLY } from "./inspect.ts";
import { watchOutput } from "../tmux_control.ts";

const POLL_MS = 100;

export const INVALID_CURSOR = refusal(
  "invalid_cursor",
  "the cursor is not one this server issued for that pane; call capture_since without one",
);
export const CANCELLED = refusal("cancelled", "the request was cancelled");

/** The request's timeout, clamped to the configured wait ceiling. */
export function effectiveTimeout(context: ServerContext, requested: number | undefined): number {
  const ceiling = context.config.waitMaxSeconds;
  return Math.min(requested ?? ceiling, ceiling);
}

function cursorFor(paneId: string, text: string | undefined): Cursor | null | undefined {
  if (text === undefined) return undefined;
  const cursor = decodeCursor(text);
  return cursor && cursor.paneId === paneId ? cursor : null;
}

export const captureSinceTool: ToolDefinition = {
  name: "capture_since",
  toolset: "inspect",
  description:
    "Watch a pane across calls: without a cursor it returns the screen and a cursor; with the " +
    "cursor it returns only lines that arrived since, and lines_missed when history was " +
    "trimmed or cleared or the pane respawned. To block until some text appears use " +
    "wait_for_text; for a one-off look use capture_pane.",
  inputSchema: schemas.captureSinceInput,
  outputSchema: schemas.captureSinceOutput,
  annotations: { ...READ_ONLY, idempotentHint: false },
  handle: async (context, args, extra) => {
    const a = args as {
      pane_id: string;
      cursor?: string;
      max_lines?: number;
      socket_name?: string;
    };
    const cursor = cursorFor(a.pane_id, a.cursor);
    if (cursor === null) return INVALID_CURSOR;
    const shot = await snapshot(clientFor(context, a.socket_name), a.pane_id, extra.signal);
    if (!shot.ok) return shot.payload;
    const s = shot.value;
    const seen = cursor
      ? since(s, cursor)
      : { lines: s.lines.slice(s.historySize), linesMissed: false, reason: null };
    return success({
      ...bounded(seen.lines, a.max_lines ?? DEFAULT_MAX_LINES, s.escaped),
      cursor: encodeCursor(cursorAt(s)),
      lines_missed: seen.linesMissed,
      missed_reason: seen.reason,
    });
  },
};

type Finder = (text: string) => { index: number; text: string } | null;

function finder(pattern: string, regex: boolean): Finder | null {
  if (!regex) {
    return (text) => {
      const index = text.indexOf(pattern);
      return index < 0 ? null : { index, text: pattern };
    };
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, "u");
  } catch {
    return null;
  }
  return (text) => {
    const match = compiled.exec(text);
    return match ? { index: match.index, text: match[0] } : null;
  };
}

/** The earliest hit among `finders` in `text`, with which finder produced it. */
function earliest(finders: Finder[], text: string) {
  let best: { index: number; text: string; which: number } | null = null;
  finders.forEach((find, which) => {
    const hit = find(text);
    if (hit && (!best || hit.index < best.index)) best = { ...hit, which };
  });
  return best as { index: number; text: string; which: number } | null;
}

export const waitForTextTool: ToolDefinition = {
  name: "wait_for_text",
  toolset: "inspect",
  description:
    "Wait until NEW output in a pane matches one of the patterns (literal, or regex: true), " +
    "ignoring what was on screen when the wait began (or before the given cursor). Optional " +
    "stop patterns end the wait early. Reports outcome matched, stopped, timeout or " +
    "pane_dead, and the effective timeout (clamped to the server's ceiling). For a command " +
    "you author and want the exit status of, use run_command instead.",
  inputSchema: schemas.waitForTextInput,
  outputSchema: schemas.waitForTextOutput,
  annotations: { ...READ_ONLY, idempotentHint: false },
  handle: (context, args, extra) => waitForText(context, args as WaitArgs, extra),
};

type WaitArgs = {
  pane_id: string;
  patterns: string[];
  regex?: boolean;
  stop?: string[];
  timeout?: number;
  cursor?: string;
  socket_name?: string;
};

async function waitForText(
  context: ServerContext,
  a: WaitArgs,
  extra: ToolExtra,
): Promise<ToolPayload> {
  const regex = a.regex ?? false;
  const matchers = a.patterns.map((p) => finder(p, regex));
  const stoppers = (a.stop ?? []).map((p) => finder(p, regex));
  if ([...matchers, ...stoppers].includes(null)) {
    return refusal("invalid_pattern", "a pattern is not a valid regular expression");
  }
  let cursor = cursorFor(a.pane_id, a.cursor);
  if (cursor === null) return INVALID_CURSOR;
  const client = clientFor(context, a.socket_name);
  const output = watchOutput(client, a.pane_id);
  const timeout = effectiveTimeout(context, a.timeout);
  const started = Date.now();
  const deadline = started + timeout * 1000;
  // The first report comes right after the first look, so a client knows the wait has begun.
  let lastProgress = started - 1000;
  let linesMissed = false;
  const result = (outcome: string, hit: { text: string; which: number } | null, c: Cursor) =>
    success({
      outcome,
      matched_text: hit?.text ?? null,
      pattern_index: hit?.which ?? null,
      effective_timeout: timeout,
      cursor: encodeCursor(c),
      lines_missed: linesMissed,
    });
  while (true) {
    if (extra.signal.aborted) return CANCELLED;
    const shot = await snapshot(client, a.pane_id, extra.signal).catch(() => null);
    if (extra.signal.aborted || shot === null) return CANCELLED;
    if (!shot.ok) {
      if (cursor && shot.payload.error.code === "not_found") {
        return success({
          outcome: "pane_dead",
          matched_text: null,
          pattern_index: null,
          effective_timeout: timeout,
          cursor: null,
          lines_missed: linesMissed,
        });
      }
      return shot.payload;
    }
    cursor ??= cursorAt(shot.value);
    const seen = since(shot.value, cursor);
    linesMissed ||= seen.linesMissed;
    const text = seen.lines.join("\n");
    const hit = earliest(matchers as Finder[], text);
    const stop = earliest(stoppers as Finder[], text);
    const now = cursorAt(shot.value);
    if (stop && (!hit || stop.index < hit.index)) return result("stopped", stop, now);
    if (hit) return result("matched", hit, now);
    if (shot.value.dead) return result("pane_dead", null, now);
    if (seen.linesMissed) cursor = now;
    if (Date.now() >= deadline) return result("timeout", null, now);
    if (extra.progress && Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      extra.progress((lastProgress - started) / 1000, "waiting for text");
    }
    await output.wake(Math.min(POLL_MS, Math.max(0, deadline - Date.now())), extra.signal);
  }
}

export const WAITING_TOOLS = [captureSinceTool, waitForTextTool];
