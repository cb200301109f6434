// One shape for every tool's answer, success or failure: `{ok, data}` or
// `{ok:false, error:{code, message, delivery, ...}}`. The tools and tmux_run's subsystem make
// them; the protocol face sends them (tool_result.ts) and nothing below the tools needs them:
// the tmux kit says what happened as facts, and the tools say it in these words.

/** Whether what a failed call would have sent reached tmux or a shell. */
export type Delivery = "not_sent" | "possibly_sent" | "observed";

export type ErrorBody = {
  code: string;
  message: string;
  delivery: Delivery;
  effects?: unknown;
};

export type ToolPayload = { ok: true; data: unknown } | { ok: false; error: ErrorBody };

/** A failed answer. */
export type Refusal = Extract<ToolPayload, { ok: false }>;

export function success(data: unknown): ToolPayload {
  return { ok: true, data };
}

/** A failure before anything reached tmux or a shell. */
export function refusal(code: string, message: string): Refusal {
  return { ok: false, error: { code, message, delivery: "not_sent" } };
}

export const POLICY_DENIED = refusal(
  "policy_denied",
  "this tool is not enabled on this server; it is turned on by name at startup",
);
