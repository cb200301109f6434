// The tools that remove tmux objects or retained history. Each resolves its target to one
// exact id first, then asks lib/caller.ts whether that object contains this MCP server
// process; anything but a clear "not ours" is refused, because removing the agent's own pane,
// window, session or server would end the session that asked.
import { type Containment, containsCaller } from "../caller.ts";
import { schemas } from "../schemas.ts";
import type { ServerContext, ToolDefinition } from "../server_context.ts";
import { clientFor, describe, resolveSession, tmuxCall } from "../targets.ts";
import type { TmuxClient } from "../tmux.ts";
import { refusal, success, type ToolPayload } from "../tool_result.ts";

const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

type Scope = "pane" | "window" | "session" | "server";

/**
 * The refusal for removing (or killing the program of) an object that holds this MCP server:
 * it names the level and the object, and whether that was established or merely not ruled out.
 */
export function containsCallerRefusal(
  scope: Scope,
  id: string,
  containment: Exclude<Containment, "not_ours">,
): ToolPayload {
  const object = scope === "server" ? "this tmux server" : `${scope} ${id}`;
  const level = scope === "pane" ? "is the pane" : "contains the pane";
  return refusal(
    "contains_caller",
    containment === "ours"
      ? `${object} ${level} this MCP server runs in; nothing was changed. Choose another ` +
        `${scope}; list_panes marks the server's own pane with is_caller`
      : `it cannot be ruled out that ${object} ${level} this MCP server runs in (its tmux ` +
        `socket or $TMUX_PANE could not be matched); nothing was changed`,
  );
}

async function guardedKill(
  context: ServerContext,
  client: TmuxClient,
  scope: Scope,
  id: string,
): Promise<ToolPayload> {
  const containment = await containsCaller(context, client, scope, id);
  if (containment !== "not_ours") return containsCallerRefusal(scope, id, containment);
  const command = `kill-${scope}`;
  const out = await tmuxCall(client, scope === "server" ? [command] : [command, "-t", id]);
  if (!out.ok) return out.payload;
  return success({ killed: scope === "server" ? "server" : id });
}

export const killPaneTool: ToolDefinition = {
  name: "kill_pane",
  title: "Remove pane",
  toolset: "teardown",
  description:
    "Remove one pane (exact %N) and end its processes. Refused for the pane running this MCP " +
    "server. To restart a pane's program in place use respawn_pane; to stop a command use " +
    "send_keys with C-c.",
  inputSchema: schemas.paneTargetInput,
  outputSchema: schemas.killedOutput,
  annotations: DESTRUCTIVE,
  handle: async (context, args) => {
    const a = args as { pane_id: string; socket_name?: string };
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.pane_id, "#{pane_id}", "");
    if (!found.ok) return found.payload;
    return guardedKill(context, client, "pane", a.pane_id);
  },
};

export const killWindowTool: ToolDefinition = {
  name: "kill_window",
  title: "Remove window",
  toolset: "teardown",
  description:
    "Remove one window (exact @N) with all its panes. Refused for the window containing this " +
    "MCP server. For a single pane use kill_pane.",
  inputSchema: schemas.windowTargetInput,
  outputSchema: schemas.killedOutput,
  annotations: DESTRUCTIVE,
  handle: async (context, args) => {
    const a = args as { window_id: string; socket_name?: string };
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.window_id, "#{window_id}", "");
    if (!found.ok) return found.payload;
    return guardedKill(context, client, "window", a.window_id);
  },
};

export const killSessionTool: ToolDefinition = {
  name: "kill_session",
  title: "Remove session",
  toolset: "teardown",
  description:
    "Remove one session (session_id or exact session_name) with its windows. Refused for the " +
    "session containing this MCP server. For one window use kill_window.",
  inputSchema: schemas.sessionTargetInput,
  outputSchema: schemas.killedOutput,
  annotations: DESTRUCTIVE,
  handle: async (context, args) => {
    const a = args as { session_id?: string; session_name?: string; socket_name?: string };
    const client = clientFor(context, a.socket_name);
    const session = await resolveSession(client, a);
    if (!session.ok) return session.payload;
    return guardedKill(context, client, "session", session.value);
  },
};

export const killServerTool: ToolDefinition = {
  name: "kill_server",
  title: "Stop tmux server",
  toolset: "teardown",
  description:
    "Stop a whole tmux server and every session on it. Refused for the server this MCP server " +
    "runs inside. To remove one session use kill_session.",
  inputSchema: schemas.socketOnlyInput,
  outputSchema: schemas.killedOutput,
  annotations: DESTRUCTIVE,
  handle: async (context, args) => {
    const a = args as { socket_name?: string };
    const client = clientFor(context, a.socket_name);
    const alive = await tmuxCall(client, ["list-sessions", "-F", "#{session_id}"]);
    if (!alive.ok) return alive.payload;
    return guardedKill(context, client, "server", "server");
  },
};

export const clearHistoryTool: ToolDefinition = {
  name: "clear_history",
  title: "Clear pane history",
  toolset: "teardown",
  description:
    "Delete a pane's scrollback history (the visible screen stays). Cursors from capture_since " +
    "will then report lines_missed. To read history first use capture_pane with a negative start.",
  inputSchema: schemas.paneTargetInput,
  outputSchema: schemas.doneOutput,
  annotations: { ...DESTRUCTIVE, idempotentHint: true },
  handle: async (context, args) => {
    const a = args as { pane_id: string; socket_name?: string };
    const client = clientFor(context, a.socket_name);
    const found = await describe(client, a.pane_id, "#{pane_id}", "");
    if (!found.ok) return found.payload;
    const out = await tmuxCall(client, ["clear-history", "-t", a.pane_id]);
    if (!out.ok) return out.payload;
    return success({ target: a.pane_id });
  },
};

export const TEARDOWN_TOOLS = [
  killPaneTool,
  killWindowTool,
  killSessionTool,
  killServerTool,
  clearHistoryTool,
];
