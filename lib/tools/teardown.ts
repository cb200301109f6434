// The tools that remove tmux objects or retained history. Each resolves its target to one
// exact id first, then asks lib/tmux/caller.ts whether that object contains this MCP server
// process; anything but a clear "not ours" is refused, because removing the agent's own pane,
// window, session or server would end the session that asked.
import { containsCaller } from "../tmux/caller.ts";
import { object, string } from "../mcp/json_schema.ts";
import type { ServerContext } from "./context.ts";
import { clientFor, describe, resolveSession, tmuxCall } from "../tmux/targets.ts";
import type { TmuxClient } from "../tmux/tmux.ts";
import { success, type ToolPayload } from "../mcp/tool_payload.ts";
import { defineTool, DESTRUCTIVE, toolOutput } from "./_define.ts";
import {
  PANE_TARGET_INPUT,
  SESSION_TARGET_INPUT,
  SOCKET_ONLY_INPUT,
  WINDOW_TARGET_INPUT,
} from "./_blocks.ts";
import { containsCallerRefusal, type Scope } from "./_refusals.ts";
import { refusalOf } from "./_tmux_refusals.ts";
import { exactChange } from "./_exact.ts";

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
  if (!out.ok) return refusalOf(out);
  return success({ killed: scope === "server" ? "server" : id });
}

/** kill_pane's and kill_window's call: the object checked to exist exactly, then guardedKill. */
async function killExact(
  context: ServerContext,
  socketName: string | undefined,
  scope: "pane" | "window",
  id: string,
): Promise<ToolPayload> {
  const client = clientFor(context, socketName);
  const found = await describe(client, id, scope === "pane" ? "#{pane_id}" : "#{window_id}", "");
  if (!found.ok) return refusalOf(found);
  return guardedKill(context, client, scope, id);
}

const KILLED_OUTPUT = toolOutput(
  object(["killed"], { killed: string({ pattern: "^([%@$][0-9]+|server)$" }) }),
);

export const killPaneTool = defineTool({
  name: "kill_pane",
  title: "Remove pane",
  toolset: "teardown",
  description:
    "Remove a pane and end its processes; refused for this MCP server's own. To restart its " +
    "program use respawn_pane; to stop a command, send_keys C-c.",
  inputSchema: PANE_TARGET_INPUT,
  outputSchema: KILLED_OUTPUT,
  annotations: DESTRUCTIVE,
  handle: (context, a) => killExact(context, a.socket_name, "pane", a.pane_id),
});

export const killWindowTool = defineTool({
  name: "kill_window",
  title: "Remove window",
  toolset: "teardown",
  description:
    "Remove a window with its panes; refused for the one holding this MCP server. For one " +
    "pane use kill_pane.",
  inputSchema: WINDOW_TARGET_INPUT,
  outputSchema: KILLED_OUTPUT,
  annotations: DESTRUCTIVE,
  handle: (context, a) => killExact(context, a.socket_name, "window", a.window_id),
});

export const killSessionTool = defineTool({
  name: "kill_session",
  title: "Remove session",
  toolset: "teardown",
  description:
    "Remove a session with its windows; refused for the one holding this MCP server. For one " +
    "window use kill_window.",
  inputSchema: SESSION_TARGET_INPUT,
  outputSchema: KILLED_OUTPUT,
  annotations: DESTRUCTIVE,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const session = await resolveSession(client, a);
    if (!session.ok) return refusalOf(session);
    return guardedKill(context, client, "session", session.value);
  },
});

export const killServerTool = defineTool({
  name: "kill_server",
  title: "Stop tmux server",
  toolset: "teardown",
  description:
    "Stop a tmux server and all its sessions; refused for the one this MCP server runs in. " +
    "For one session use kill_session.",
  inputSchema: SOCKET_ONLY_INPUT,
  outputSchema: KILLED_OUTPUT,
  annotations: DESTRUCTIVE,
  handle: async (context, a) => {
    const client = clientFor(context, a.socket_name);
    const alive = await tmuxCall(client, ["list-sessions", "-F", "#{session_id}"]);
    if (!alive.ok) return refusalOf(alive);
    return guardedKill(context, client, "server", "server");
  },
});

export const clearHistoryTool = exactChange("pane_id", {
  name: "clear_history",
  title: "Clear pane history",
  toolset: "teardown",
  description:
    "Delete a pane's scrollback history (the screen stays). To read it first use capture_pane " +
    "with a negative start.",
  inputSchema: PANE_TARGET_INPUT,
  annotations: { ...DESTRUCTIVE, idempotentHint: true },
  command: (a) => ["clear-history", "-t", a.pane_id],
});

export const TEARDOWN_TOOLS = [
  killPaneTool,
  killWindowTool,
  killSessionTool,
  killServerTool,
  clearHistoryTool,
];
