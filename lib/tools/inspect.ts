// The read-only tools: what exists on a tmux server and what its panes show. They never
// create a server (every command here fails rather than starting one), never expand a format
// that could run a shell command, and bound every listing and capture, keeping the tail.
import { sameServerAsCaller } from "../tmux/caller.ts";
import { bounded, DEFAULT_MAX_LINES, snapshot } from "../tmux/capture.ts";
import { fencedRows } from "../tmux/fenced_rows.ts";
import {
  array,
  boolean,
  enumOf,
  integer,
  nullable,
  object,
  type Static,
  string,
  toolInput,
} from "../mcp/json_schema.ts";
import type { ServerContext } from "./context.ts";
import {
  clientFor,
  describe,
  describeThen,
  isNotAnswering,
  isUnsafeFormat,
  NEED_ONE_SESSION,
  notFound,
  resolveSession,
  sessionTarget,
  tmuxCall,
  UNSAFE_FORMAT,
} from "../tmux/targets.ts";
import type { TmuxClient } from "../tmux/tmux.ts";
import { refusal, success } from "../mcp/tool_result.ts";
import {
  defineTool,
  INVALID_PATTERN,
  MAX_LINES,
  PANE_ID,
  READ_ONLY,
  RESULT_IDS,
  SESSION_ID,
  SESSION_NAME,
  SOCKET_NAME,
  SOCKET_ONLY_INPUT,
  toolOutput,
  UNSUPPORTED_PATTERN,
  WINDOW_ID,
} from "./toolkit.ts";
import { lineFinder, pacer } from "../util/line_patterns.ts";

export const MAX_LISTED = 1000;

const PANE_FIELDS = [
  "#{pane_id}",
  "#{pane_pid}",
  "#{pane_current_command}",
  "#{session_id}",
  "#{window_id}",
  "#{pane_index}",
  "#{pane_active}",
  "#{pane_dead}",
  "#{pane_width}",
  "#{pane_height}",
  "#{pane_current_path}",
  "#{pane_title}",
];

/** One pane as list_panes and get_pane_info report it. */
const PANE_ROW = object([
  "pane_id",
  "pane_pid",
  "current_command",
  "current_path",
  "title",
  "session_id",
  "window_id",
  "pane_index",
  "active",
  "dead",
  "width",
  "height",
  "is_caller",
  "enrolled",
], {
  pane_id: RESULT_IDS.pane_id,
  pane_pid: integer(),
  current_command: string(),
  current_path: string(),
  title: string(),
  session_id: RESULT_IDS.session_id,
  window_id: RESULT_IDS.window_id,
  pane_index: integer(),
  active: boolean(),
  dead: boolean(),
  width: integer(),
  height: integer(),
  is_caller: boolean(),
  enrolled: boolean(),
});

export type PaneRow = Static<typeof PANE_ROW>;

/** Marks the caller's own pane and panes enrolled for tmux_run (only on the bound server). */
async function paneMarker(context: ServerContext, client: TmuxClient) {
  const ours = await sameServerAsCaller(context, client) === "ours";
  const bound = client === context.tmux;
  return (paneId: string) => ({
    is_caller: ours && context.caller?.pane === paneId,
    enrolled: bound && !!context.enrollments?.shells.has(paneId),
  });
}

/** A pane's fields as fencedRows read them; null when an id is not one. */
function parsePane(f: string[]): Omit<PaneRow, "is_caller" | "enrolled"> | null {
  if (!/^%\d+$/.test(f[0]) || !/^\$\d+$/.test(f[3]) || !/^@\d+$/.test(f[4])) return null;
  return {
    pane_id: f[0],
    pane_pid: Number(f[1]) || 0,
    current_command: f[2],
    session_id: f[3],
    window_id: f[4],
    pane_index: Number(f[5]),
    active: f[6] === "1",
    dead: f[7] === "1",
    width: Number(f[8]),
    height: Number(f[9]),
    current_path: f[10],
    title: f[11],
  };
}

/** Every row of a fenced listing parsed, or null when one of them does not parse. */
function parseAll<T>(rows: string[][] | null, parse: (fields: string[]) => T | null): T[] | null {
  const parsed: T[] = [];
  for (const row of rows ?? []) {
    const item = parse(row);
    if (item === null) return null;
    parsed.push(item);
  }
  return rows && parsed;
}

export const UNREADABLE_ROWS = refusal(
  "tmux_failed",
  "tmux printed a listing this server could not read exactly; list again",
);

function rows(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line !== "");
}

/** The panes `scope` selects (every pane when empty), each marked. */
export async function listPanes(
  context: ServerContext,
  client: TmuxClient,
  scope: string[],
  signal?: AbortSignal,
) {
  const fenced = fencedRows(PANE_FIELDS);
  const out = await tmuxCall(client, ["list-panes", ...scope, "-F", fenced.format], signal);
  if (!out.ok) return out;
  const panes = parseAll(fenced.parse(out.value), parsePane);
  if (panes === null) return { ok: false as const, payload: UNREADABLE_ROWS };
  const mark = await paneMarker(context, client);
  return { ok: true as const, value: panes.map((pane) => ({ ...pane, ...mark(pane.pane_id) })) };
}

export async function paneInfo(
  context: ServerContext,
  client: TmuxClient,
  paneId: string,
  signal?: AbortSignal,
) {
  const fenced = fencedRows(PANE_FIELDS);
  const out = await tmuxCall(
    client,
    ["display-message", "-p", "-t", paneId, fenced.format],
    signal,
  );
  if (!out.ok) {
    return {
      ok: false as const,
      payload: out.payload.error.code === "not_found" ? notFound(paneId) : out.payload,
    };
  }
  const rows = fenced.parse(out.value);
  // tmux resolved exactly this pane, never another one (nor none, with empty fields).
  if (rows?.length === 1 && rows[0][0] !== paneId) {
    return { ok: false as const, payload: notFound(paneId) };
  }
  const pane = rows?.length === 1 ? parsePane(rows[0]) : null;
  if (pane === null) return { ok: false as const, payload: UNREADABLE_ROWS };
  return { ok: true as const, value: { ...pane, ...(await paneMarker(context, client))(paneId) } };
}

function tail<T>(items: T[]): { items: T[]; truncated: number } {
  const truncated = Math.max(0, items.length - MAX_LISTED);
  return { items: items.slice(truncated), truncated };
}

const LIST_SESSIONS_OUTPUT = toolOutput(object(["sessions", "truncated"], {
  sessions: array({
    items: object(["session_id", "session_name", "windows", "attached", "created"], {
      session_id: RESULT_IDS.session_id,
      session_name: string(),
      windows: integer(),
      attached: integer(),
      created: integer(),
    }),
  }),
  truncated: integer({ minimum: 0 }),
}));

export const listSessionsTool = defineTool({
  name: "list_sessions",
  title: "List sessions",
  toolset: "inspect",
  description:
    "List the sessions on a tmux server with their ids ($N). Use the ids as exact targets. " +
    "For windows use list_windows; for panes (and which one is running this server) use list_panes.",
  inputSchema: SOCKET_ONLY_INPUT,
  outputSchema: LIST_SESSIONS_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, { socket_name }) => {
    const fenced = fencedRows([
      "#{session_id}",
      "#{session_windows}",
      "#{session_attached}",
      "#{session_created}",
      "#{session_name}",
    ]);
    const out = await tmuxCall(clientFor(context, socket_name), [
      "list-sessions",
      "-F",
      fenced.format,
    ]);
    if (!out.ok) return out.payload;
    const sessions = parseAll(fenced.parse(out.value), (f) =>
      /^\$\d+$/.test(f[0])
        ? {
          session_id: f[0],
          windows: Number(f[1]),
          attached: Number(f[2]),
          created: Number(f[3]),
          session_name: f[4],
        }
        : null);
    if (sessions === null) return UNREADABLE_ROWS;
    const { items, truncated } = tail(sessions);
    return success({ sessions: items, truncated });
  },
});

const LIST_WINDOWS_INPUT = toolInput([], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  socket_name: SOCKET_NAME,
});

const LIST_WINDOWS_OUTPUT = toolOutput(object(["windows", "truncated"], {
  windows: array({
    items: object([
      "window_id",
      "window_index",
      "window_name",
      "session_id",
      "active",
      "panes",
      "layout",
    ], {
      window_id: RESULT_IDS.window_id,
      window_index: integer(),
      window_name: string(),
      session_id: RESULT_IDS.session_id,
      active: boolean(),
      panes: integer(),
      layout: string(),
    }),
  }),
  truncated: integer({ minimum: 0 }),
}));

export const listWindowsTool = defineTool({
  name: "list_windows",
  title: "List windows",
  toolset: "inspect",
  description:
    "List windows (@N ids) of one session (session_id or exact session_name), or of every " +
    "session when none is given. For the panes inside, use list_panes with window_id.",
  inputSchema: LIST_WINDOWS_INPUT,
  outputSchema: LIST_WINDOWS_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    let scope = ["-a"];
    if (a.session_id !== undefined || a.session_name !== undefined) {
      const session = await resolveSession(client, a);
      if (!session.ok) return session.payload;
      scope = ["-t", session.value];
    }
    const fenced = fencedRows([
      "#{window_id}",
      "#{window_index}",
      "#{session_id}",
      "#{window_active}",
      "#{window_panes}",
      "#{window_layout}",
      "#{window_name}",
    ]);
    const out = await tmuxCall(client, ["list-windows", ...scope, "-F", fenced.format]);
    if (!out.ok) return out.payload;
    const windows = parseAll(
      fenced.parse(out.value),
      (f) =>
        /^@\d+$/.test(f[0]) && /^\$\d+$/.test(f[2])
          ? {
            window_id: f[0],
            window_index: Number(f[1]),
            session_id: f[2],
            active: f[3] === "1",
            panes: Number(f[4]),
            layout: f[5],
            window_name: f[6],
          }
          : null,
    );
    if (windows === null) return UNREADABLE_ROWS;
    const { items, truncated } = tail(windows);
    return success({ windows: items, truncated });
  },
});

const LIST_PANES_INPUT = toolInput([], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  window_id: WINDOW_ID,
  socket_name: SOCKET_NAME,
});

const LIST_PANES_OUTPUT = toolOutput(
  object(["panes", "truncated"], {
    panes: array({ items: PANE_ROW }),
    truncated: integer({ minimum: 0 }),
  }),
);

export const listPanesTool = defineTool({
  name: "list_panes",
  title: "List panes",
  toolset: "inspect",
  description:
    "List panes (%N ids) with their process, size and path, in a window, a session, or on the " +
    "whole server. is_caller marks the pane this MCP server runs in; enrolled marks panes " +
    "tmux_run may use. For one pane's details use get_pane_info; for its text use capture_pane.",
  inputSchema: LIST_PANES_INPUT,
  outputSchema: LIST_PANES_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const bySession = a.session_id !== undefined || a.session_name !== undefined;
    if (bySession && a.window_id !== undefined) return NEED_ONE_SESSION;
    let scope = ["-a"];
    if (a.window_id !== undefined) {
      const window = await describe(client, a.window_id, "#{window_id}", "");
      if (!window.ok) return window.payload;
      scope = ["-t", a.window_id];
    } else if (bySession) {
      const session = await resolveSession(client, a);
      if (!session.ok) return session.payload;
      scope = ["-s", "-t", session.value];
    }
    const panes = await listPanes(context, client, scope);
    if (!panes.ok) return panes.payload;
    const { items, truncated } = tail(panes.value);
    return success({ panes: items, truncated });
  },
});

const GET_PANE_INFO_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
  format: string({
    maxLength: 1024,
    description: "a tmux format to expand for the pane, e.g. #{pane_width}; at most 1024 " +
      "characters; #(…), E: and T: are refused; default: none",
  }),
});

const GET_PANE_INFO_OUTPUT = toolOutput(
  object(["pane", "format_result"], { pane: PANE_ROW, format_result: nullable("string") }),
);

export const getPaneInfoTool = defineTool({
  name: "get_pane_info",
  title: "Pane details",
  toolset: "inspect",
  description:
    "Details of one pane by exact id, optionally expanding a tmux format for it (formats that " +
    "run commands, #(, are refused). To find pane ids use list_panes; for its text use " +
    "capture_pane.",
  inputSchema: GET_PANE_INFO_INPUT,
  outputSchema: GET_PANE_INFO_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    if (a.format !== undefined && isUnsafeFormat(a.format)) return UNSAFE_FORMAT;
    const client = clientFor(context, a.socket_name);
    const pane = await paneInfo(context, client, a.pane_id);
    if (!pane.ok) return pane.payload;
    let formatResult: string | null = null;
    if (a.format !== undefined) {
      const expanded = await describe(client, a.pane_id, "#{pane_id}", a.format);
      if (!expanded.ok) return expanded.payload;
      formatResult = expanded.value.join("\t");
    }
    return success({ pane: pane.value, format_result: formatResult });
  },
});

const CAPTURE_PANE_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
  start: integer({
    minimum: -1000000,
    maximum: 10000,
    description: "first line to capture: 0 is the top of the visible screen, negative numbers " +
      "reach into history (-100 is 100 lines up); -1000000 to 10000; default: the top of the " +
      "screen",
  }),
  end: integer({
    minimum: -1000000,
    maximum: 10000,
    description: "last line to capture, numbered like start, -1000000 to 10000; default: the " +
      "bottom of the screen",
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
    "The text of one pane: the visible screen, or a line range (negative lines are history). " +
    "Bounded, keeping the tail. To see only what is new since your last look use " +
    "capture_since; to wait for some text to appear use wait_for_text.",
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
    if (!out.ok) return out.payload;
    const lines = out.value.output.replace(/\n$/, "").split("\n").map((line) => line.trimEnd());
    return success(bounded(lines, a.max_lines ?? DEFAULT_MAX_LINES));
  },
});

const SEARCH_PANES_INPUT = toolInput(["pattern"], {
  pattern: string({
    minLength: 1,
    maxLength: 1024,
    description: "text to look for in each line of every pane's screen and history, 1 to 1024 " +
      "characters",
  }),
  regex: boolean({
    description: "treat pattern as a JavaScript regular expression tested on each line, in " +
      "linear time: no lookahead or backreferences (default false: literal text)",
  }),
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  socket_name: SOCKET_NAME,
  max_matches: integer({
    minimum: 1,
    maximum: 1000,
    description: "stop after this many matching lines; 1 to 1000, default 100",
  }),
});

const SEARCH_PANES_OUTPUT = toolOutput(
  object(["matches", "panes_searched", "truncated"], {
    matches: array({
      items: object(["pane_id", "line", "text"], {
        pane_id: RESULT_IDS.pane_id,
        line: integer(),
        text: string(),
      }),
    }),
    panes_searched: integer({ minimum: 0 }),
    truncated: boolean(),
  }),
);

export const searchPanesTool = defineTool({
  name: "search_panes",
  title: "Search pane text",
  toolset: "inspect",
  description:
    "Find which panes show some text (screen and history), on the whole server or in one " +
    "session. Returns matching lines. To wait for text that has not appeared yet use " +
    "wait_for_text; to read one pane use capture_pane.",
  inputSchema: SEARCH_PANES_INPUT,
  outputSchema: SEARCH_PANES_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const find = await lineFinder(a.pattern, { regex: a.regex ?? false, ignoreCase: false });
    if (find === "invalid") return INVALID_PATTERN;
    if (find === "unsupported") return UNSUPPORTED_PATTERN;
    const client = clientFor(context, a.socket_name);
    let scope = ["-a"];
    if (a.session_id !== undefined || a.session_name !== undefined) {
      const session = await resolveSession(client, a);
      if (!session.ok) return session.payload;
      scope = ["-s", "-t", session.value];
    }
    const listed = await tmuxCall(client, ["list-panes", ...scope, "-F", "#{pane_id}"]);
    if (!listed.ok) return listed.payload;
    const limit = a.max_matches ?? 100;
    const matches: { pane_id: string; line: number; text: string }[] = [];
    let truncated = false;
    const panes = rows(listed.value);
    const pace = pacer();
    for (const paneId of panes) {
      const shot = await snapshot(client, context.tempFiles, paneId);
      // A server that stopped answering would leave every next pane waiting just as long.
      if (!shot.ok && isNotAnswering(shot)) return shot.payload;
      if (!shot.ok) continue;
      const origin = shot.value.historySize;
      for (const [index, text] of shot.value.lines.entries()) {
        await pace();
        if (!find(text)) continue;
        if (matches.length >= limit) truncated = true;
        else matches.push({ pane_id: paneId, line: index - origin, text: text.trimEnd() });
      }
    }
    return success({ matches, panes_searched: panes.length, truncated });
  },
});

const SHOW_OPTIONS_INPUT = toolInput(["scope"], {
  scope: enumOf(["server", "session", "window", "pane"], {
    description: "which options: server, session, window or pane (then give " +
      "session_id/session_name, window_id or pane_id, or global: true)",
  }),
  global: boolean({
    description: "the global value for the scope instead of one object's (default false)",
  }),
  name: string({
    maxLength: 128,
    pattern: "^@?[A-Za-z0-9_-]+(\\[[0-9]+\\])?$",
    description: "one option's name, e.g. history-limit or @my-option, at most 128 characters; " +
      "default: every option of the scope",
  }),
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  window_id: WINDOW_ID,
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
});

const SHOW_OPTIONS_OUTPUT = toolOutput(
  object(["options", "truncated"], {
    options: array({ items: object(["name", "value"], { name: string(), value: string() }) }),
    truncated: integer({ minimum: 0 }),
  }),
);

export const showOptionsTool = defineTool({
  name: "show_options",
  title: "Show tmux options",
  toolset: "inspect",
  description:
    "Show tmux options for the server, a session, a window or a pane (or their global values), " +
    "optionally one option by name. To see a pane's size or process use get_pane_info.",
  inputSchema: SHOW_OPTIONS_INPUT,
  outputSchema: SHOW_OPTIONS_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const flags: string[] = [];
    if (a.scope === "server") flags.push("-s");
    else if (a.global) {
      flags.push(a.scope === "session" ? "-g" : a.scope === "window" ? "-gw" : "-gp");
    } else {
      // show-options resolves -t as a pane, where only `=name:` (or `$N:`) names a session.
      const session = sessionTarget(a);
      const target = a.scope === "session"
        ? session && `${session}:`
        : a.scope === "window"
        ? a.window_id
        : a.pane_id;
      if (!target) return MISSING_TARGET;
      flags.push(a.scope === "window" ? "-w" : a.scope === "pane" ? "-p" : "", "-t", target);
    }
    const out = await tmuxCall(client, [
      "show-options",
      ...flags.filter((flag) => flag !== ""),
      ...(a.name ? [a.name] : []),
    ]);
    if (!out.ok) return out.payload;
    const options = rows(out.value).map((line) => {
      const space = line.indexOf(" ");
      return space < 0
        ? { name: line, value: "" }
        : { name: line.slice(0, space), value: line.slice(space + 1) };
    });
    const { items, truncated } = tail(options);
    return success({ options: items, truncated });
  },
});

const MISSING_TARGET = refusal(
  "invalid_input",
  "name the object for this scope: session_id or session_name, window_id, or pane_id",
);

export const INSPECT_TOOLS = [
  listSessionsTool,
  listWindowsTool,
  listPanesTool,
  getPaneInfoTool,
  capturePaneTool,
  searchPanesTool,
  showOptionsTool,
];
