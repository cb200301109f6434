// The refusals more than one tool gives: a cancelled call, a tmux step that threw, a pattern the
// regex engine will not take, and removing an object that holds this MCP server.
import type { Containment } from "../tmux/caller.ts";
import type { ToolExtra } from "./context.ts";
import { type Refusal, refusal, type ToolPayload } from "../mcp/tool_payload.ts";
import { type TmuxClient, TmuxNotAnswering } from "../tmux/tmux.ts";
import { notAnswering } from "../tmux/targets.ts";
import { tmuxRefusal } from "./_tmux_refusals.ts";

export const CANCELLED = refusal("cancelled", "the request was cancelled");

/**
 * What a tmux step that threw says, as a failed outcome: the caller's own cancel is `cancelled`
 * and tmux not answering within the call's bound is `tmux_not_answering`; any other error is the
 * server's own fault (a defect, or a failure no step names), `server_fault` with its message.
 * Each carries the delivery known at that step (once a line may have been typed, never
 * `not_sent`), so an unexpected error after typing is never taken for a cancel or a line unsent.
 */
export function failedStep(
  error: unknown,
  extra: ToolExtra,
  client: TmuxClient,
  delivery: "not_sent" | "possibly_sent",
): { ok: false; payload: Extract<ToolPayload, { ok: false }> } {
  const said = extra.signal.aborted
    ? CANCELLED
    : error instanceof TmuxNotAnswering
    ? tmuxRefusal(notAnswering(client))
    : serverFault(error);
  return { ok: false, payload: { ...said, error: { ...said.error, delivery } } };
}

/** An error no step names, said as what it is. */
function serverFault(error: unknown): Refusal {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return refusal(
    "server_fault",
    `the server failed at this step (${what}); the delivery says whether anything was typed`,
  );
}

export const INVALID_PATTERN = refusal(
  "invalid_pattern",
  "a pattern is not a valid regular expression; fix it or pass regex: false",
);

export const UNSUPPORTED_PATTERN = refusal(
  "invalid_pattern",
  "a pattern uses lookahead, a backreference or a lookbehind with a capture, which regexes here " +
    "do not support (they are matched in linear time, by RE2's rules); rewrite it without them",
);

export type Scope = "pane" | "window" | "session" | "server";

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
