// The tools that change tmux structure and presentation (sessions, windows, splits, names,
// focus, sizes, layouts, titles) without supplying input to any program. New objects start the
// user's default shell and nothing else; running something is the execute toolset's job.
import { schemas } from "../schemas.ts";
import type { ServerContext, ToolDefinition } from "../server_context.ts";
import { clientFor, describe, resolveSession, tmuxCall } from "../targets.ts";
import { refusal, success, type ToolPayload } from "../tool_result.ts";

const CHANGES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
const IDEMPOTENT = { ...CHANGES, idempotentHint: true };

const DUPLICATE = refusal(
  "already_exists",
  "a session with that name already exists; pick another name or use list_sessions",
);
const NOTHING_TO_DO = refusal("invalid_input", "give width, height or zoom");

type Socket = { socket_name?: string };
const CREATED = "#{session_id}\t#{window_id}\t#{pane_id}\t#{session_name}";

function created(stdout: string) {
  const [session_id, window_id, pane_id, ...name] = stdout.trim().split("\t");
  return success({ session_id, window_id, pane_id, session_name: name.join("\t") });
}

/** Runs a tmux command against an object already checked to exist exactly. */
async function onExact(
  context: ServerContext,
  a: Socket,
  target: string,
  idFormat: "#{pane_id}" | "#{window_id}",
  args: string[],
): Promise<ToolPayload> {
  const client = clientFor(context, a.socket_name);
  const found = await describe(client, target, idFormat, "");
  if (!found.ok) return found.payload;
  const out = await tmuxCall(client, args);
  return out.ok ? success({ target }) : out.payload;
}

export const createSessionTool: ToolDefinition = {
  name: "create_session",
  title: "Create session",
  toolset: "manage",
  description:
    "Create a detached session running the default shell (starting the tmux server if needed), " +
    "and return its session, window and pane ids. To add a window to an existing session use " +
    "create_window; to run a command in the new pane use run_command.",
  inputSchema: schemas.createSessionInput,
  outputSchema: schemas.createdOutput,
  annotations: CHANGES,
  handle: async (context, args) => {
    const a = args as Socket & {
      session_name?: string;
      window_name?: string;
      start_directory?: string;
      width?: number;
      height?: number;
    };
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
      return a.session_name && out.payload.error.code === "tmux_failed" ? DUPLICATE : out.payload;
    }
    return created(out.value);
  },
};

export const createWindowTool: ToolDefinition = {
  name: "create_window",
  title: "Create window",
  toolset: "manage",
  description:
    "Add a window running the default shell to a session (session_id or exact session_name), " +
    "without switching to it. To divide an existing window use split_window.",
  inputSchema: schemas.createWindowInput,
  outputSchema: schemas.createdOutput,
  annotations: CHANGES,
  handle: async (context, args) => {
    const a = args as Socket & {
      session_id?: string;
      session_name?: string;
      window_name?: string;
      start_directory?: string;
    };
    const client = clientFor(context, a.socket_name);
    const session = await resolveSession(client, a);
    if (!session.ok) return session.payload;
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
    return out.ok ? created(out.value) : out.payload;
  },
};

export const splitWindowTool: ToolDefinition = {
  name: "split_window",
  title: "Split pane",
  toolset: "manage",
  description:
    "Split a pane (exact %N) into two; the new pane runs the default shell and its id is " +
    "returned. horizontal puts them side by side. For a new window use create_window.",
  inputSchema: schemas.splitWindowInput,
  outputSchema: schemas.createdOutput,
  annotations: CHANGES,
  handle: async (context, args) => {
    const a = args as Socket & {
      pane_id: string;
      direction?: "horizontal" | "vertical";
      size_percent?: number;
      start_directory?: string;
    };
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.pane_id, "#{pane_id}", "");
    if (!found.ok) return found.payload;
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
    return out.ok ? created(out.value) : out.payload;
  },
};

export const renameSessionTool: ToolDefinition = {
  name: "rename_session",
  title: "Rename session",
  toolset: "manage",
  description:
    "Rename a session (session_id or exact session_name). For a window use rename_window; " +
    "for a pane's title use set_pane_title.",
  inputSchema: schemas.renameSessionInput,
  outputSchema: schemas.doneOutput,
  annotations: IDEMPOTENT,
  handle: async (context, args) => {
    const a = args as Socket & { session_id?: string; session_name?: string; new_name: string };
    const client = clientFor(context, a.socket_name);
    const session = await resolveSession(client, a);
    if (!session.ok) return session.payload;
    const out = await tmuxCall(client, ["rename-session", "-t", session.value, "--", a.new_name]);
    if (!out.ok) return out.payload.error.code === "tmux_failed" ? DUPLICATE : out.payload;
    return success({ target: session.value });
  },
};

export const renameWindowTool: ToolDefinition = {
  name: "rename_window",
  title: "Rename window",
  toolset: "manage",
  description: "Rename a window (exact @N). For a session use rename_session.",
  inputSchema: schemas.renameWindowInput,
  outputSchema: schemas.doneOutput,
  annotations: IDEMPOTENT,
  handle: (context, args) => {
    const a = args as Socket & { window_id: string; new_name: string };
    return onExact(context, a, a.window_id, "#{window_id}", [
      "rename-window",
      "-t",
      a.window_id,
      "--",
      a.new_name,
    ]);
  },
};

export const selectWindowTool: ToolDefinition = {
  name: "select_window",
  title: "Select window",
  toolset: "manage",
  description:
    "Make a window (exact @N) the current one in its session, for people watching. Tools never " +
    "need this: they take exact ids. For a pane use select_pane.",
  inputSchema: schemas.windowTargetInput,
  outputSchema: schemas.doneOutput,
  annotations: IDEMPOTENT,
  handle: (context, args) => {
    const a = args as Socket & { window_id: string };
    return onExact(context, a, a.window_id, "#{window_id}", ["select-window", "-t", a.window_id]);
  },
};

export const selectPaneTool: ToolDefinition = {
  name: "select_pane",
  title: "Select pane",
  toolset: "manage",
  description:
    "Make a pane (exact %N) the active one in its window, for people watching. Tools never " +
    "need this: they take exact ids. For a window use select_window.",
  inputSchema: schemas.paneTargetInput,
  outputSchema: schemas.doneOutput,
  annotations: IDEMPOTENT,
  handle: (context, args) => {
    const a = args as Socket & { pane_id: string };
    return onExact(context, a, a.pane_id, "#{pane_id}", ["select-pane", "-t", a.pane_id]);
  },
};

export const resizePaneTool: ToolDefinition = {
  name: "resize_pane",
  title: "Resize or zoom pane",
  toolset: "manage",
  description:
    "Resize a pane (exact %N) to a width and/or height in cells, or toggle its zoom. To " +
    "rearrange all panes of a window use select_layout.",
  inputSchema: schemas.resizePaneInput,
  outputSchema: schemas.doneOutput,
  annotations: CHANGES,
  handle: (context, args) => {
    const a = args as Socket & { pane_id: string; width?: number; height?: number; zoom?: boolean };
    if (!a.zoom && a.width === undefined && a.height === undefined) {
      return Promise.resolve(NOTHING_TO_DO);
    }
    return onExact(context, a, a.pane_id, "#{pane_id}", [
      "resize-pane",
      "-t",
      a.pane_id,
      ...(a.zoom ? ["-Z"] : []),
      ...(a.width !== undefined ? ["-x", String(a.width)] : []),
      ...(a.height !== undefined ? ["-y", String(a.height)] : []),
    ]);
  },
};

export const selectLayoutTool: ToolDefinition = {
  name: "select_layout",
  title: "Apply window layout",
  toolset: "manage",
  description:
    "Arrange a window's panes (exact @N) in one of tmux's preset layouts. For one pane's size " +
    "use resize_pane.",
  inputSchema: schemas.selectLayoutInput,
  outputSchema: schemas.doneOutput,
  annotations: IDEMPOTENT,
  handle: (context, args) => {
    const a = args as Socket & { window_id: string; layout: string };
    return onExact(context, a, a.window_id, "#{window_id}", [
      "select-layout",
      "-t",
      a.window_id,
      a.layout,
    ]);
  },
};

export const setPaneTitleTool: ToolDefinition = {
  name: "set_pane_title",
  title: "Set pane title",
  toolset: "manage",
  description: "Set a pane's title (exact %N), e.g. to label what runs there; list_panes and " +
    "get_pane_info report it. For window names use rename_window.",
  inputSchema: schemas.setPaneTitleInput,
  outputSchema: schemas.doneOutput,
  annotations: IDEMPOTENT,
  handle: (context, args) => {
    const a = args as Socket & { pane_id: string; title: string };
    return onExact(context, a, a.pane_id, "#{pane_id}", [
      "select-pane",
      "-t",
      a.pane_id,
      "-T",
      a.title,
    ]);
  },
};

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
