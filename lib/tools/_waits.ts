// How waits are bounded: a call's timeout, clamped to the server's wait ceiling and never
// refused for being long, and the signal that ends every tmux command of the call by then,
// even when tmux stops answering; cancellation ends them at once.
import { number } from "../mcp/json_schema.ts";
import type { ServerContext, ToolExtra } from "./context.ts";
import { TmuxNotAnswering } from "../tmux/tmux.ts";
import type { ToolPayload } from "../mcp/tool_payload.ts";
import { CANCELLED } from "./_refusals.ts";

/** A wait's timeout: never refused for being long, clamped to the server's wait ceiling. */
export const TIMEOUT = number({
  exclusiveMinimum: 0,
  description: "seconds; default: the wait ceiling (30 unless configured); clamped to the " +
    "ceiling, not rejected",
});

/**
 * How long past its own timeout a tool that has one gives a tmux command still in flight (its
 * last look, usually) before abandoning it as unanswered: it answers by its timeout plus this.
 */
export const ANSWER_GRACE_MS = 500;

/** The request's timeout, clamped to the configured wait ceiling. */
export function effectiveTimeout(context: ServerContext, requested: number | undefined): number {
  const ceiling = context.config.waitMaxSeconds;
  return Math.min(requested ?? ceiling, ceiling);
}

/**
 * The call's signal, also aborted with TmuxNotAnswering once `seconds` and ANSWER_GRACE_MS have
 * passed: given to every tmux command of a tool with a timeout, it ends them by then even when
 * tmux stops answering (such a command reports tmux_not_answering, lib/tmux/targets.ts).
 * `clear` stops the clock when the call ends.
 */
export function boundByTimeout(
  signal: AbortSignal,
  seconds: number,
): { signal: AbortSignal; clear: () => void } {
  const clock = new AbortController();
  const timer = setTimeout(
    () => clock.abort(new TmuxNotAnswering()),
    seconds * 1000 + ANSWER_GRACE_MS,
  );
  return { signal: AbortSignal.any([signal, clock.signal]), clear: () => clearTimeout(timer) };
}

/**
 * `call` with the call's timeout (`requested`, clamped) and the signal that ends every tmux
 * command of it by then (boundByTimeout), whose clock stops when `call` ends; a call cancelled
 * before it starts is answered CANCELLED.
 */
export async function withinTimeout(
  context: ServerContext,
  requested: number | undefined,
  extra: ToolExtra,
  call: (bound: { timeout: number; signal: AbortSignal }) => Promise<ToolPayload>,
): Promise<ToolPayload> {
  if (extra.signal.aborted) return CANCELLED;
  const timeout = effectiveTimeout(context, requested);
  const tmuxBound = boundByTimeout(extra.signal, timeout);
  try {
    return await call({ timeout, signal: tmuxBound.signal });
  } finally {
    tmuxBound.clear();
  }
}
