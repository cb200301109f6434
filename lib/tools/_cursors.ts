// Cursors as tools hand them out and take them back: short handles to positions in a pane that
// the server keeps (lib/tmux/cursor_store.ts), the parameter and result blocks that carry them,
// and the refusals for one that is unknown or expired.
import { string } from "../mcp/json_schema.ts";
import type { KeptCursor, ServerContext } from "./context.ts";
import { refusal, type ToolPayload } from "../mcp/tool_payload.ts";
import { socketPath, type TmuxClient } from "../tmux/tmux.ts";
import { type Snapshot } from "../tmux/capture.ts";
import { cursorAt } from "../tmux/since.ts";
import { CURSOR_IDLE_MS, CURSORS_KEPT } from "../tmux/cursor_store.ts";
import { keptTyped } from "../tmux/input_echo.ts";

/** The `cursor` input of the tools that read since a cursor. */
export const CURSOR = string({
  minLength: 1,
  maxLength: 64,
  description: "only output after it counts; default: now",
});

/** A cursor in a result. */
export const RESULT_CURSOR = string({
  maxLength: 64,
  description: "a handle for this moment in the pane, for capture_since or wait_for_text; " +
    `kept ${CURSOR_IDLE_MS / 60000} minutes after its last use`,
});

/**
 * Keeps a cursor at `shot`'s position, and what is typed right after it (at most TYPED_KEPT
 * characters of it, lib/tmux/input_echo.ts); its handle.
 */
export function keepCursor(
  context: ServerContext,
  client: TmuxClient,
  shot: Snapshot,
  typed: string | null = null,
): string {
  return context.cursors.issue({
    server: socketPath(client.socket),
    cursor: cursorAt(shot),
    typed: typed === null ? null : keptTyped(typed),
  });
}

/** The kept cursor behind `handle` for this pane on this server, or the refusal saying why not. */
export function findCursor(
  context: ServerContext,
  client: TmuxClient,
  paneId: string,
  handle: string,
): { ok: true; kept: KeptCursor } | { ok: false; payload: ToolPayload } {
  const found = context.cursors.look(handle);
  if (!found.ok && found.miss === "expired") return { ok: false, payload: CURSOR_EXPIRED };
  if (
    !found.ok || found.value.cursor.paneId !== paneId ||
    found.value.server !== socketPath(client.socket)
  ) return { ok: false, payload: INVALID_CURSOR };
  return { ok: true, kept: found.value };
}

export const INVALID_CURSOR = refusal(
  "invalid_cursor",
  "`cursor` is not one this MCP server issued for that pane on that tmux server (it may be " +
    "another pane's, another server's, or from before this server restarted); nothing was " +
    "read. Call capture_since without a cursor to take a new one",
);

export const CURSOR_EXPIRED = refusal(
  "cursor_expired",
  `\`cursor\` has expired: the server keeps a cursor ${CURSOR_IDLE_MS / 60000} minutes after ` +
    `its last use, and at most ${CURSORS_KEPT} of them; nothing was read. Call capture_since ` +
    "without a cursor to take a new one (it returns the current screen)",
);
