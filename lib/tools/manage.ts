// The tools that change tmux structure and presentation (sessions, windows, splits, names,
// focus, sizes, layouts, titles) without supplying input to any program. New objects start the
// user's default shell and nothing else; running something is the execute toolset's job.
import { boolean, enumOf, integer, object, string, toolInput } from "../mcp/json_schema.ts";
import { clientFor, describe, resolveSession, tmuxCall } from "../tmux/targets.ts";
import { exactChange, onExact } from "./_exact.ts";
import { refusalOf } from "./_tmux_refusals.ts";
import { refusal, success } from "../mcp/tool_payload.ts";
import { CHANGES, defineTool, IDEMPOTENT_CHANGE, toolOutput } from "./_define.ts";
import {
  DONE_OUTPUT,
  PANE_ID,
  PANE_TARGET_INPUT,
  RESULT_IDS,
  SESSION_ID,
  SESSION_NAME,
  SOCKET_NAME,
  START_DIRECTORY,
  WINDOW_ID,
  WINDOW_TARGET_INPUT,
} from "./_blocks.ts";

const DUPLICATE = refusal(
  "already_exists",
  "a session with that name already exists; pick another name or use list_sessions",
);
const NOTHING_TO_DO = refusal("invalid_input", "give width, height or zoom");

const CREATED = "#{session_id}\t#{window_id}\t#{pane_id}\t#{session_name}";

function created(stdout: string) {
  const [session_id, window_id, pane_id, ...name] = stdout.trim().split("\t");
  return success({ session_id, window_id, pane_id, session_name: name.join("\t") });
}

const CREATE_SESSION_INPUT = toolInput([], {
  session_name: string({
    minLength: 1,
    maxLength: 128,
    pattern: "^[^:.\\u0000-\\u001f]+$",
    description: "no ':' or '.'; default: a number",
  }),
  window_name: string({
    minLength: 1,
    maxLength: 128,
    pattern: "^[^\\u0000-\\u001f]+$",
    description: "the first window's name; default: the program's",
  }),
  start_directory: START_DIRECTORY,
  width: integer({
    minimum: 10,
    maximum: 1000,
    description: "columns, 10 to 1000; default: tmux's default-size",
  }),
  height: integer({
    minimum: 5,
    maximum: 1000,
    description: "lines, 5 to 1000; default: tmux's default-size",
  }),
  socket_name: SOCKET_NAME,
});

const CREATED_OUTPUT = toolOutput(
  object(["session_id", "window_id", "pane_id"], {
    session_id: RESULT_IDS.session_id,
    session_name: string(),
    window_id: RESULT_IDS.window_id,
    pane_id: RESULT_IDS.pane_id,
  }),
);

export const createSessionTool = defineTool({
  name: "create_session",
  title: "Create session",
  toolset: "manage",
  description:
    "Create a detached session running the default shell (starting tmux if needed); returns " +
    "its session, window and pane ids. To add a window use create_window.",
  inputSchema: CREATE_SESSION_INPUT,
  outputSchema: CREATED_OUTPUT,
  annotations: CHANGES,
  handle: async (context, a) => {
    const out = await tmuxCall(clientFor(context, a.socket_name), [
      "new-session",
      "-d",
      "-P",
      "-F",
      CREATED,
      ...(a.session_name ? ["-s", a.session_name] : []),
      ...(a.window_name ? ["-n", a.window_name] : []),
      ...(a.start_directory ? ["-c", a.start_directory] : []),
      ...(a.width ? ["-x", String(a.width)] : []),
      ...(a.height ? ["-y", String(a.height)] : []),
    ]);
    if (!out.ok) {
      return a.session_name && out.failure.kind === "tmux_failed" ? DUPLICATE : refusalOf(out);
    }
    return created(out.value);
  },
});

const CREATE_WINDOW_INPUT = toolInput([], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  window_name: string({
    minLength: 1,
    maxLength: 128,
    pattern: "^[^\\u0000-\\u001f]+$",
    description: "default: the program's name",
  }),
  start_directory: START_DIRECTORY,
  socket_name: SOCKET_NAME,
});

export const createWindowTool = defineTool({
  name: "create_window",
  title: "Create window",
  toolset: "manage",
  description:
    "Add a window running the default shell to a session, without switching to it. To divide " +
    "a window use split_window.",
  inputSchema: CREATE_WINDOW_INPUT,
  outputSchema: CREATED_OUTPUT,
  annotations: CHANGES,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const session = await resolveSession(client, a);
    if (!session.ok) return refusalOf(session);
    const out = await tmuxCall(client, [
      "new-window",
      "-d",
      "-P",
      "-F",
      CREATED,
      "-t",
      `${session.value}:`,
      ...(a.window_name ? ["-n", a.window_name] : []),
      ...(a.start_directory ? ["-c", a.start_directory] : []),
    ]);
    return out.ok ? created(out.value) : refusalOf(out);
  },
});

const SPLIT_WINDOW_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  direction: enumOf(["horizontal", "vertical"], {
    description: "horizontal: side by side (default vertical)",
  }),
  size_percent: integer({
    minimum: 1,
    maximum: 99,
    description: "the new pane's share, 1 to 99 percent; default: half",
  }),
  start_directory: START_DIRECTORY,
  socket_name: SOCKET_NAME,
});

export const splitWindowTool = defineTool({
  name: "split_window",
  title: "Split pane",
  toolset: "manage",
  description:
    "Split a pane in two; the new pane runs the default shell and its id is returned. For a " +
    "new window use create_window.",
  inputSchema: SPLIT_WINDOW_INPUT,
  outputSchema: CREATED_OUTPUT,
  annotations: CHANGES,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.pane_id, "#{pane_id}", "");
    if (!found.ok) return refusalOf(found);
    const out = await tmuxCall(client, [
      "split-window",
      "-d",
      "-P",
      "-F",
      CREATED,
      "-t",
      a.pane_id,
      a.direction === "horizontal" ? "-h" : "-v",
      ...(a.size_percent ? ["-l", `${a.size_percent}%`] : []),
      ...(a.start_directory ? ["-c", a.start_directory] : []),
    ]);
    return out.ok ? created(out.value) : refusalOf(out);
  },
});

const RENAME_SESSION_INPUT = toolInput(["new_name"], {
  session_id: SESSION_ID,
  session_name: SESSION_NAME,
  new_name: string({
    minLength: 1,
    maxLength: 128,
    pattern: "^[^:.\\u0000-\\u001f]+$",
    description: "no ':' or '.'",
  }),
  socket_name: SOCKET_NAME,
});

export const renameSessionTool = defineTool({
  name: "rename_session",
  title: "Rename session",
  toolset: "manage",
  description: "Rename a session. For a window use rename_window.",
  inputSchema: RENAME_SESSION_INPUT,
  outputSchema: DONE_OUTPUT,
  annotations: IDEMPOTENT_CHANGE,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const session = await resolveSession(client, a);
    if (!session.ok) return refusalOf(session);
    const out = await tmuxCall(client, ["rename-session", "-t", session.value, "--", a.new_name]);
    if (!out.ok) return out.failure.kind === "tmux_failed" ? DUPLICATE : refusalOf(out);
    return success({ target: session.value });
  },
});

const RENAME_WINDOW_INPUT = toolInput(["window_id", "new_name"], {
  window_id: WINDOW_ID,
  new_name: string({
    minLength: 1,
    maxLength: 128,
    pattern: "^[^\\u0000-\\u001f]+$",
    description: "the window's new name",
  }),
  socket_name: SOCKET_NAME,
});

export const renameWindowTool = exactChange("window_id", {
  name: "rename_window",
  title: "Rename window",
  toolset: "manage",
  description: "Rename a window. For a session use rename_session.",
  inputSchema: RENAME_WINDOW_INPUT,
  annotations: IDEMPOTENT_CHANGE,
  command: (a) => ["rename-window", "-t", a.window_id, "--", a.new_name],
});

export const selectWindowTool = exactChange("window_id", {
  name: "select_window",
  title: "Select window",
  toolset: "manage",
  description:
    "Make a window current in its session, for people watching; tools never need it. For a " +
    "pane use select_pane.",
  inputSchema: WINDOW_TARGET_INPUT,
  annotations: IDEMPOTENT_CHANGE,
  command: (a) => ["select-window", "-t", a.window_id],
});

export const selectPaneTool = exactChange("pane_id", {
  name: "select_pane",
  title: "Select pane",
  toolset: "manage",
  description:
    "Make a pane active in its window, for people watching; tools never need it. For a " +
    "window use select_window.",
  inputSchema: PANE_TARGET_INPUT,
  annotations: IDEMPOTENT_CHANGE,
  command: (a) => ["select-pane", "-t", a.pane_id],
});

const RESIZE_PANE_INPUT = toolInput(["pane_id"], {
  pane_id: PANE_ID,
  width: integer({
    minimum: 1,
    maximum: 1000,
    description: "columns, 1 to 1000; default: unchanged",
  }),
  height: integer({
    minimum: 1,
    maximum: 1000,
    description: "lines, 1 to 1000; default: unchanged",
  }),
  zoom: boolean({
    description: "toggle zoom instead (default false); give width, height or zoom",
  }),
  socket_name: SOCKET_NAME,
});

export const resizePaneTool = defineTool({
  name: "resize_pane",
  title: "Resize or zoom pane",
  toolset: "manage",
  description: "Resize a pane or toggle its zoom. For all of a window's panes use select_layout.",
  inputSchema: RESIZE_PANE_INPUT,
  outputSchema: DONE_OUTPUT,
  annotations: CHANGES,
  handle: (context, a) => {
    if (!a.zoom && a.width === undefined && a.height === undefined) {
      return Promise.resolve(NOTHING_TO_DO);
    }
    return onExact(context, a, "pane_id", [
      "resize-pane",
      "-t",
      a.pane_id,
      ...(a.zoom ? ["-Z"] : []),
      ...(a.width !== undefined ? ["-x", String(a.width)] : []),
      ...(a.height !== undefined ? ["-y", String(a.height)] : []),
    ]);
  },
});

const SELECT_LAYOUT_INPUT = toolInput(["window_id", "layout"], {
  window_id: WINDOW_ID,
  layout: enumOf(
    ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"],
    {
      description: "tmux's preset layout",
    },
  ),
  socket_name: SOCKET_NAME,
});

export const selectLayoutTool = exactChange("window_id", {
  name: "select_layout",
  title: "Apply window layout",
  toolset: "manage",
  description: "Arrange a window's panes in a preset layout. For one pane's size use resize_pane.",
  inputSchema: SELECT_LAYOUT_INPUT,
  annotations: IDEMPOTENT_CHANGE,
  command: (a) => ["select-layout", "-t", a.window_id, a.layout],
});

const SET_PANE_TITLE_INPUT = toolInput(["pane_id", "title"], {
  pane_id: PANE_ID,
  title: string({
    maxLength: 256,
    pattern: "^[^\\u0000-\\u001f]*$",
    description: "the pane's new title",
  }),
  socket_name: SOCKET_NAME,
});

export const setPaneTitleTool = exactChange("pane_id", {
  name: "set_pane_title",
  title: "Set pane title",
  toolset: "manage",
  description: "Set a pane's title, e.g. to label what runs there. For a window's name use " +
    "rename_window.",
  inputSchema: SET_PANE_TITLE_INPUT,
  annotations: IDEMPOTENT_CHANGE,
  command: (a) => ["select-pane", "-t", a.pane_id, "-T", a.title],
});

export const MANAGE_TOOLS = [
  createSessionTool,
  createWindowTool,
  splitWindowTool,
  renameSessionTool,
  renameWindowTool,
  selectWindowTool,
  selectPaneTool,
  resizePaneTool,
  selectLayoutTool,
  setPaneTitleTool,
];
