// The tools that are one tmux command on a pane or window their input names by id (manage's
// renames, selections, layout, size and title; teardown's clear_history): the object checked
// to exist exactly first, so a missing or mistyped id is refused before tmux acts, then the
// command, answering the id it changed.
import type { Schema } from "../mcp/json_schema.ts";
import type { ServerContext, ToolDefinition } from "./context.ts";
import { clientFor, describe, tmuxCall } from "../tmux/targets.ts";
import { success, type ToolPayload } from "../mcp/tool_payload.ts";
import { defineTool } from "./_define.ts";
import { DONE_OUTPUT } from "./_blocks.ts";
import { refusalOf } from "./_tmux_refusals.ts";

/** The input field that names the one object a call changes. */
type Exact = "pane_id" | "window_id";

type Socket = { socket_name?: string };

/** Runs a tmux command against the object `a[on]`, checked first to exist exactly. */
export async function onExact<K extends Exact>(
  context: ServerContext,
  a: Socket & Record<K, string>,
  on: K,
  args: string[],
): Promise<ToolPayload> {
  const client = clientFor(context, a.socket_name);
  const target = a[on];
  const idFormat = on === "pane_id" ? "#{pane_id}" : "#{window_id}";
  const found = await describe(client, target, idFormat, "");
  if (!found.ok) return refusalOf(found);
  const out = await tmuxCall(client, args);
  return out.ok ? success({ target }) : refusalOf(out);
}

/** A tool that is `command` on the pane or window its input names by id (`on`), via onExact. */
export function exactChange<K extends Exact, T extends Socket & Record<K, string>>(
  on: K,
  tool: Pick<ToolDefinition, "name" | "title" | "toolset" | "description" | "annotations"> & {
    inputSchema: Schema<T>;
    command: (a: T) => string[];
  },
): ToolDefinition {
  const { command, ...shown } = tool;
  return defineTool({
    ...shown,
    outputSchema: DONE_OUTPUT,
    handle: (context, a) => onExact(context, a, on, command(a)),
  });
}
