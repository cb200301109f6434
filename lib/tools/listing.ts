// The read-only tools that say what exists: the person's tmux servers, and on one server its
// sessions, windows, panes and one pane's details. They never create a server (every command
// here fails rather than starting one), read tmux's rows fenced so that no name can forge a row
// or shift a field (lib/tmux/fenced_rows.ts), and bound every listing, keeping the tail.
import { sameServerAsCaller } from "../tmux/caller.ts";
import { listServers, MAX_SERVERS } from "../tmux/servers.ts";
import { fencedRows } from "../tmux/fenced_rows.ts";
import { PANE_FIELDS, type PaneFacts, parseAll, parsePane } from "../tmux/pane_rows.ts";
import { foregroundCommands } from "../host/processes.ts";
import {
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
  failed,
  isUnsafeFormat,
  notFound,
  resolveSession,
  tmuxCall,
} from "../tmux/targets.ts";
import { NEED_ONE_SESSION, refusalOf, UNSAFE_FORMAT } from "./_tmux_refusals.ts";
import type { TmuxClient } from "../tmux/tmux.ts";
import { refusal, success } from "../mcp/tool_payload.ts";
import { defineTool, READ_ONLY, toolOutput } from "./_define.ts";
import {
  EMPTY_INPUT,
  FOREGROUND,
  PANE_ID,
  RESULT_IDS,
  SESSION_ID,
  SESSION_NAME,
  SOCKET_NAME,
  SOCKET_ONLY_INPUT,
  WINDOW_ID,
} from "./_blocks.ts";
import { listed, listingOutput } from "./_listings.ts";

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
  "session_name",
  "window_name",
  "foreground",
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
  session_name: string(),
  window_name: string(),
  foreground: FOREGROUND,
});

/** A pane as the tools report it: tmux's facts (pane_rows.ts) and what this server knows. */
type PaneRow = Static<typeof PANE_ROW>;

/**
 * What this server adds to tmux's facts of `panes`: the caller's own pane and the panes enrolled
 * for tmux_run (both only on the bound server), and each live pane's foreground process.
 */
async function marked(
  context: ServerContext,
  client: TmuxClient,
  panes: PaneFacts[],
): Promise<PaneRow[]> {
  const ours = await sameServerAsCaller(context, client) === "ours";
  const bound = client === context.tmux;
  const live = panes.filter((pane) => !pane.dead && pane.pane_pid > 0);
  const foreground = await foregroundCommands(live.map((pane) => pane.pane_pid));
  return panes.map((pane) => ({
    ...pane,
    is_caller: ours && context.caller?.pane === pane.pane_id,
    enrolled: bound && !!context.enrollments?.shells.has(pane.pane_id),
    foreground: pane.dead ? null : foreground.get(pane.pane_pid) ?? null,
  }));
}

export const UNREADABLE_ROWS = refusal(
  "tmux_failed",
  "tmux printed a listing this server could not read exactly; list again",
);

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
  return { ok: true as const, value: await marked(context, client, panes) };
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
  if (!out.ok) return out.failure.kind === "not_found" ? failed(notFound(paneId)) : out;
  const rows = fenced.parse(out.value);
  // tmux resolved exactly this pane, never another one (nor none, with empty fields).
  if (rows?.length === 1 && rows[0][0] !== paneId) {
    return failed(notFound(paneId));
  }
  const pane = rows?.length === 1 ? parsePane(rows[0]) : null;
  if (pane === null) return { ok: false as const, payload: UNREADABLE_ROWS };
  const [value] = await marked(context, client, [pane]);
  return { ok: true as const, value };
}

const LIST_SERVERS_OUTPUT = listingOutput(
  "servers",
  object(["socket_name", "state", "sessions", "bound"], {
    socket_name: string(),
    state: enumOf(["alive", "stale", "not_answering", "unknown"]),
    sessions: nullable("integer"),
    bound: boolean(),
  }),
);

export const listServersTool = defineTool({
  name: "list_servers",
  title: "List tmux servers",
  toolset: "inspect",
  description:
    `List your tmux servers' sockets (at most ${MAX_SERVERS}, the bound one first): alive ` +
    "(with sessions), stale (left by a killed server), not_answering or unknown. Pass " +
    "socket_name to other tools to reach one; for its sessions use list_sessions.",
  inputSchema: EMPTY_INPUT,
  outputSchema: LIST_SERVERS_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, _args, { signal }) => {
    const listed = await listServers(context.tmux.bin, context.tmux.socket, signal);
    if (!listed.ok) {
      return refusal(
        "unusable_directory",
        `tmux's socket directory for you ($TMUX_TMPDIR or /tmp, then tmux-UID) cannot be ` +
          `listed: ${listed.why}; tmux refuses such a directory too. Check it, or set ` +
          "TMUX_TMPDIR for this server to the directory your tmux uses",
      );
    }
    return success({ servers: listed.servers, truncated: listed.truncated });
  },
});

const LIST_SESSIONS_OUTPUT = listingOutput(
  "sessions",
  object(["session_id", "session_name", "windows", "attached", "created"], {
    session_id: RESULT_IDS.session_id,
    session_name: string(),
    windows: integer(),
    attached: integer(),
    created: integer(),
  }),
);

export const listSessionsTool = defineTool({
  name: "list_sessions",
  title: "List sessions",
  toolset: "inspect",
  description: "List a tmux server's sessions ($N ids). For windows use list_windows; for panes, " +
    "list_panes.",
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
    if (!out.ok) return refusalOf(out);
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
    return listed("sessions", sessions);
  },
});

const LIST_WINDOWS_INPUT = toolInput([], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  socket_name: SOCKET_NAME,
});

const LIST_WINDOWS_OUTPUT = listingOutput(
  "windows",
  object([
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
);

export const listWindowsTool = defineTool({
  name: "list_windows",
  title: "List windows",
  toolset: "inspect",
  description:
    "List the windows (@N ids) of one session, or of all. For their panes use list_panes.",
  inputSchema: LIST_WINDOWS_INPUT,
  outputSchema: LIST_WINDOWS_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    let scope = ["-a"];
    if (a.session_id !== undefined || a.session_name !== undefined) {
      const session = await resolveSession(client, a);
      if (!session.ok) return refusalOf(session);
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
    if (!out.ok) return refusalOf(out);
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
    return listed("windows", windows);
  },
});

const LIST_PANES_INPUT = toolInput([], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  window_id: WINDOW_ID,
  socket_name: SOCKET_NAME,
});

const LIST_PANES_OUTPUT = listingOutput("panes", PANE_ROW);

export const listPanesTool = defineTool({
  name: "list_panes",
  title: "List panes",
  toolset: "inspect",
  description:
    "List the panes (%N ids) of a window, a session or the server, with session and window " +
    "names, size, path and foreground process (from the kernel): find the pane running a " +
    "program. is_caller marks this MCP server's own pane; enrolled, those tmux_run may " +
    "use. For text use capture_pane.",
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
      if (!window.ok) return refusalOf(window);
      scope = ["-t", a.window_id];
    } else if (bySession) {
      const session = await resolveSession(client, a);
      if (!session.ok) return refusalOf(session);
      scope = ["-s", "-t", session.value];
    }
    const panes = await listPanes(context, client, scope);
    if (!panes.ok) return refusalOf(panes);
    return listed("panes", panes.value);
  },
});

const GET_PANE_INFO_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  socket_name: SOCKET_NAME,
  format: string({
    maxLength: 1024,
    pattern: "^[^\\u0000]*$",
    description: "a tmux format to expand, e.g. #{pane_width}; #(…), E: and T: are refused",
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
    "One pane's details, optionally with a tmux format expanded for it. To find panes use " +
    "list_panes.",
  inputSchema: GET_PANE_INFO_INPUT,
  outputSchema: GET_PANE_INFO_OUTPUT,
  annotations: READ_ONLY,
  handle: async (context, a) => {
    if (a.format !== undefined && isUnsafeFormat(a.format)) return UNSAFE_FORMAT;
    const client = clientFor(context, a.socket_name);
    const pane = await paneInfo(context, client, a.pane_id);
    if (!pane.ok) return refusalOf(pane);
    let formatResult: string | null = null;
    if (a.format !== undefined) {
      const expanded = await describe(client, a.pane_id, "#{pane_id}", a.format);
      if (!expanded.ok) return refusalOf(expanded);
      formatResult = expanded.value.join("\t");
    }
    return success({ pane: pane.value, format_result: formatResult });
  },
});

export const LISTING_TOOLS = [
  listServersTool,
  listSessionsTool,
  listWindowsTool,
  listPanesTool,
  getPaneInfoTool,
];
