// Decides whether a tmux object contains this MCP server process, so that teardown never
// removes the pane, window, session or server the agent itself lives in. Identity is the real
// path of the socket ($TMUX's first field against what the target server reports) plus
// $TMUX_PANE: a `%0` on another server is not ours. Anything we cannot establish is "uncertain",
// and callers refuse on uncertain.
import type { TmuxClient } from "./tmux.ts";
import { tmuxCall } from "./targets.ts";

export type Caller = { tmux?: string; pane?: string };

/** What the containment checks read of the server's context: $TMUX and $TMUX_PANE as seen. */
export type CallerContext = { readonly caller?: Readonly<Caller> };

export type Containment = "ours" | "not_ours" | "uncertain";

export function callerFromEnvironment(): Caller {
  return { tmux: Deno.env.get("TMUX"), pane: Deno.env.get("TMUX_PANE") };
}

/** The canonical path of a file such as a tmux socket, or null when it does not resolve. */
export async function realPath(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}

/** Whether `client` reaches the tmux server this process runs inside. */
export async function sameServerAsCaller(
  context: CallerContext,
  client: TmuxClient,
): Promise<Containment> {
  const caller = context.caller ?? {};
  if (!caller.tmux) return caller.pane ? "uncertain" : "not_ours";
  const ours = await realPath(caller.tmux.split(",")[0]);
  if (ours === null) return "uncertain";
  const reported = await tmuxCall(client, ["display-message", "-p", "#{socket_path}"]);
  if (!reported.ok) return "uncertain";
  const theirs = await realPath(reported.value.trim());
  if (theirs === null) return "uncertain";
  return theirs === ours ? "ours" : "not_ours";
}

type Scope = "pane" | "window" | "session";

/**
 * Whether the object `id` (a pane, window or session id, already resolved) contains the
 * caller. A window linked into several sessions counts for each of them.
 */
export async function containsCaller(
  context: CallerContext,
  client: TmuxClient,
  scope: Scope | "server",
  id: string,
): Promise<Containment> {
  const server = await sameServerAsCaller(context, client);
  if (server !== "ours" || scope === "server") return server;
  const pane = context.caller?.pane ?? "";
  if (!/^%\d+$/.test(pane)) return "uncertain";
  if (scope === "pane") return pane === id ? "ours" : "not_ours";
  const window = await tmuxCall(client, ["display-message", "-p", "-t", pane, "#{window_id}"]);
  if (!window.ok) return "uncertain";
  const windowId = window.value.trim();
  if (scope === "window") return windowId === id ? "ours" : "not_ours";
  const links = await tmuxCall(client, ["list-windows", "-a", "-F", "#{session_id} #{window_id}"]);
  if (!links.ok) return "uncertain";
  const sessions = links.value.split("\n").filter((line) => line.endsWith(` ${windowId}`))
    .map((line) => line.split(" ")[0]);
  if (sessions.length === 0) return "uncertain";
  return sessions.includes(id) ? "ours" : "not_ours";
}
