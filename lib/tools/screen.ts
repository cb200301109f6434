// The read-only tools that read what panes show: one pane's text (capture_pane), its screen as
// a full-screen program draws it (snapshot_pane), and a search across panes (search_panes).
// Every capture is bounded, keeping the tail; a regex runs in time linear in the line
// (lib/util/line_patterns.ts).
import { LOOK_HISTORY_LINES } from "../tmux/capture.ts";
import { expandTabs } from "../tmux/captured_text.ts";
import { bounded, DEFAULT_MAX_LINES, MAX_TEXT_BYTES } from "../tmux/bounded_text.ts";
import { TMUX_ANSWER_SECONDS, type TmuxClient } from "../tmux/tmux.ts";
import { readScreen } from "../tmux/pane_screen.ts";
import { foregroundCommands } from "../host/processes.ts";
import {
  array,
  boolean,
  enumOf,
  integer,
  nullable,
  object,
  string,
  toolInput,
} from "../mcp/json_schema.ts";
import { clientFor, describeThen, resolveSession, tmuxCall, tmuxReads } from "../tmux/targets.ts";
import { type Refusal, success } from "../mcp/tool_payload.ts";
import { defineTool, READ_ONLY, toolOutput } from "./_define.ts";
import {
  FOREGROUND,
  MAX_LINES,
  PANE_ID,
  PANE_TARGET_INPUT,
  RESULT_IDS,
  SESSION_ID,
  SESSION_NAME,
  SOCKET_NAME,
} from "./_blocks.ts";
import { INVALID_PATTERN, UNSUPPORTED_PATTERN } from "./_refusals.ts";
import { refusalOf } from "./_tmux_refusals.ts";
import { rows } from "./_listings.ts";
import { lineFinder, pacer } from "../util/line_patterns.ts";

/** The line numbers capture_pane takes: a million lines of history up, 10000 rows down. */
const FIRST_LINE_NUMBER = -1000000;
const LAST_LINE_NUMBER = 10000;

const CAPTURE_PANE_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
  start: integer({
    minimum: FIRST_LINE_NUMBER,
    maximum: LAST_LINE_NUMBER,
    description: "first line: 0 is the screen's top, negative is history (-100: 100 lines " +
      `up), at most ${LAST_LINE_NUMBER}; default: the top`,
  }),
  end: integer({
    minimum: FIRST_LINE_NUMBER,
    maximum: LAST_LINE_NUMBER,
    description: `last line, numbered like start, at most ${LAST_LINE_NUMBER}; default: the bottom`,
  }),
  max_lines: MAX_LINES,
});

const CAPTURE_PANE_OUTPUT = toolOutput(
  object(["text", "encoding", "truncated_lines", "truncated_bytes"], {
    text: string(),
    encoding: enumOf(["utf-8", "utf-8-escaped"]),
    truncated_lines: integer({ minimum: 0 }),
    truncated_bytes: integer({ minimum: 0 }),
  }),
);

export const capturePaneTool = defineTool({
  name: "capture_pane",
  title: "Capture pane text",
  toolset: "inspect",
  description:
    "One pane's text: the visible screen or a line range, keeping the tail. For only what is " +
    "new use capture_since; to wait for text, wait_for_text.",
  inputSchema: CAPTURE_PANE_INPUT,
  outputSchema: CAPTURE_PANE_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const range = [
      ...(a.start === undefined ? [] : ["-S", String(a.start)]),
      ...(a.end === undefined ? [] : ["-E", String(a.end)]),
    ];
    // One tmux invocation checks that the pane exists and captures it.
    const capture = ["capture-pane", "-p", "-J", "-t", a.pane_id, ...range];
    const out = await describeThen(client, a.pane_id, "#{pane_id}", "", capture);
    if (!out.ok) return refusalOf(out);
    const lines = out.value.output.replace(/\n$/, "").split("\n")
      .map((line) => expandTabs(line).trimEnd());
    return success(bounded(lines, a.max_lines ?? DEFAULT_MAX_LINES));
  },
});

const SNAPSHOT_PANE_OUTPUT = toolOutput(
  object([
    "pane_id",
    "lines",
    "truncated_lines",
    "cursor_x",
    "cursor_y",
    "alternate_screen",
    "pane_mode",
    "width",
    "height",
    "dead",
    "current_command",
    "foreground",
  ], {
    pane_id: RESULT_IDS.pane_id,
    lines: array({ items: string() }),
    truncated_lines: integer({ minimum: 0 }),
    cursor_x: integer({ minimum: 0 }),
    cursor_y: integer({ minimum: 0 }),
    alternate_screen: boolean(),
    pane_mode: nullable("string"),
    width: integer({ minimum: 0 }),
    height: integer({ minimum: 0 }),
    dead: boolean(),
    current_command: string(),
    foreground: FOREGROUND,
  }),
);

/** The last lines of `lines` that fit in MAX_TEXT_BYTES, and how many were cut above them. */
function screenTail(lines: string[]): { lines: string[]; truncated_lines: number } {
  const encoder = new TextEncoder();
  let bytes = 0;
  let first = lines.length;
  while (first > 0) {
    bytes += encoder.encode(lines[first - 1]).length + 1;
    if (bytes > MAX_TEXT_BYTES) break;
    first--;
  }
  return { lines: lines.slice(first), truncated_lines: first };
}

export const snapshotPaneTool = defineTool({
  name: "snapshot_pane",
  title: "Snapshot a pane's screen",
  toolset: "inspect",
  description: "One pane's screen now: lines (lines[i] is row i + truncated_lines), cursor, " +
    "alternate_screen (a full-screen program draws), pane_mode (copy-mode and such), size " +
    "and foreground command: to drive full-screen programs. For history use capture_pane.",
  inputSchema: PANE_TARGET_INPUT,
  outputSchema: SNAPSHOT_PANE_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const screen = await readScreen(clientFor(context, a.socket_name), a.pane_id);
    if (!screen.ok) return refusalOf(screen);
    const { facts, lines } = screen.value;
    const live = !facts.dead && facts.pane_pid > 0;
    const foreground = live ? await foregroundCommands([facts.pane_pid]) : new Map();
    return success({
      pane_id: facts.pane_id,
      ...screenTail(lines),
      cursor_x: facts.cursor_x,
      cursor_y: facts.cursor_y,
      alternate_screen: facts.alternate_screen,
      pane_mode: facts.pane_mode,
      width: facts.width,
      height: facts.height,
      dead: facts.dead,
      current_command: facts.current_command,
      foreground: foreground.get(facts.pane_pid) ?? null,
    });
  },
});

/**
 * The history a search reads: at most as many lines above each pane's screen as any look
 * (LOOK_HISTORY_LINES), and SEARCH_HISTORY_LINES in all, shared evenly by the panes. A
 * search of the whole history of 50 panes of 100,000 lines each kept tmux busy past its 5 s
 * answer bound (issue 31) and read lines no agent would page through.
 */
const SEARCH_HISTORY_LINES = 200_000;
/**
 * History lines asked of tmux in one request. Each request has tmux's own answer bound
 * (TMUX_ANSWER_SECONDS), so a search's time bound grows with the lines it reads: a request of
 * 20,000 lines took tmux about 0.1 s. A full request holds more than 10,000 lines, so a search
 * makes at most 21 (50 panes of 100,000 lines: 11 requests, 0.9 s in all).
 */
const REQUEST_HISTORY_LINES = 20_000;

const SEARCH_PANES_INPUT = toolInput(["pattern"], {
  pattern: string({
    minLength: 1,
    maxLength: 1024,
    description: "text to find in a line (a regex with regex: true)",
  }),
  history: boolean({
    description: `search history too (default false): the last ${LOOK_HISTORY_LINES} lines ` +
      `above each screen at most, ${SEARCH_HISTORY_LINES} in all, shared evenly by the panes`,
  }),
  regex: boolean({
    description: "pattern is a JavaScript regex, without lookahead or backreferences " +
      "(default false: literal)",
  }),
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  socket_name: SOCKET_NAME,
  max_matches: integer({
    minimum: 1,
    maximum: 1000,
    description: "most lines returned, 1 to 1000, default 100",
  }),
});

const SEARCH_PANES_OUTPUT = toolOutput(
  object(["matches", "panes_searched", "truncated", "history_lines_per_pane", "history_cut"], {
    matches: array({
      items: object(["pane_id", "line", "text"], {
        pane_id: RESULT_IDS.pane_id,
        line: integer(),
        text: string(),
      }),
    }),
    panes_searched: integer({ minimum: 0 }),
    truncated: boolean(),
    history_lines_per_pane: integer({ minimum: 0 }),
    history_cut: boolean(),
  }),
);

type SearchMatch = { pane_id: string; line: number; text: string };

/**
 * The panes' lines, a few panes per tmux request so that each request asks for at most
 * REQUEST_HISTORY_LINES history lines; `each` gets every pane's lines as they come, numbered
 * from the top of what was read. Every capture is its own command line, at one write per
 * request: a pane that closed in the meantime fails its own line only. With history, its size
 * first, to number the lines and to tell whether the window cut it.
 */
async function readPanes(
  client: TmuxClient,
  panes: string[],
  window: number,
  signal: AbortSignal | undefined,
  each: (paneId: string, lines: string[], origin: number, cut: boolean) => Promise<void>,
): Promise<Refusal | null> {
  const perPane = window > 0 ? 2 : 1;
  const panesPerRequest = window > 0
    ? Math.max(1, Math.floor(REQUEST_HISTORY_LINES / window))
    : panes.length;
  for (let first = 0; first < panes.length; first += panesPerRequest) {
    const group = panes.slice(first, first + panesPerRequest);
    const answers = await tmuxReads(
      client,
      group.flatMap((paneId) =>
        window > 0
          ? [
            ["display-message", "-p", "-t", paneId, "#{history_size}"],
            ["capture-pane", "-p", "-J", "-t", paneId, "-S", `-${window}`],
          ]
          : [["capture-pane", "-p", "-J", "-t", paneId]]
      ),
      signal,
    );
    if (!answers.ok) return refusalOf(answers);
    for (const [i, paneId] of group.entries()) {
      const captured = answers.value[i * perPane + perPane - 1];
      const held = window > 0 ? Number(answers.value[i * perPane]) : 0;
      if (captured === null || !Number.isInteger(held)) continue;
      const lines = captured.replace(/\n$/, "").split("\n");
      await each(paneId, lines, Math.min(held, window), held > window);
    }
  }
  return null;
}

export const searchPanesTool = defineTool({
  name: "search_panes",
  title: "Search pane text",
  toolset: "inspect",
  description:
    "Find which panes of the server or one session show some text (the visible screen, or " +
    `history too: at most ${LOOK_HISTORY_LINES} lines a pane, ${SEARCH_HISTORY_LINES} in all, ` +
    `${TMUX_ANSWER_SECONDS} s per ${REQUEST_HISTORY_LINES} lines); lines are numbered like ` +
    "capture_pane's start. To wait for text not yet there use wait_for_text.",
  inputSchema: SEARCH_PANES_INPUT,
  outputSchema: SEARCH_PANES_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a, { signal }) => {
    const find = await lineFinder(a.pattern, { regex: a.regex ?? false, ignoreCase: false });
    if (find === "invalid") return INVALID_PATTERN;
    if (find === "unsupported") return UNSUPPORTED_PATTERN;
    const client = clientFor(context, a.socket_name);
    let scope = ["-a"];
    if (a.session_id !== undefined || a.session_name !== undefined) {
      const session = await resolveSession(client, a, signal);
      if (!session.ok) return refusalOf(session);
      scope = ["-s", "-t", session.value];
    }
    const listed = await tmuxCall(client, ["list-panes", ...scope, "-F", "#{pane_id}"], signal);
    if (!listed.ok) return refusalOf(listed);
    const panes = rows(listed.value);
    const window = a.history
      ? Math.min(LOOK_HISTORY_LINES, Math.floor(SEARCH_HISTORY_LINES / Math.max(1, panes.length)))
      : 0;
    const limit = a.max_matches ?? 100;
    const matches: SearchMatch[] = [];
    let truncated = false;
    let historyCut = false;
    const pace = pacer();
    const failed = await readPanes(
      client,
      panes,
      window,
      signal,
      async (paneId, lines, origin, cut) => {
        historyCut ||= cut;
        for (const [index, line] of lines.entries()) {
          const text = expandTabs(line);
          await pace();
          if (!find(text)) continue;
          if (matches.length >= limit) truncated = true;
          else matches.push({ pane_id: paneId, line: index - origin, text: text.trimEnd() });
        }
      },
    );
    if (failed) return failed;
    return success({
      matches,
      panes_searched: panes.length,
      truncated,
      history_lines_per_pane: window,
      history_cut: historyCut,
    });
  },
});

export const SCREEN_TOOLS = [capturePaneTool, snapshotPaneTool, searchPanesTool];
