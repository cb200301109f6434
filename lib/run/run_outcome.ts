// The one place where a tmux_run failure becomes `{code, delivery, effects}`. Phases throw a
// RunFailure carrying what they know (the receipt once the guard granted, a completion once the
// helper read one); this module derives `effects` from that, so no phase can report a state
// that contradicts the evidence it holds.
import type { Completion } from "./frames.ts";
import type { Delivery, ToolPayload } from "../mcp/tool_result.ts";

export type Receipt = {
  state: "authorized";
  run_id: string;
  script_digest: string;
  server_generation: string;
  pane_id: string;
  enrollment_generation: string;
  process_generation: string;
};

export type RunFailureCode =
  | "policy_denied"
  | "invalid_input"
  | "closed"
  | "cancelled"
  | "capacity"
  | "stale_target"
  | "unsupported"
  | "deadline"
  | "transport_error";

export class RunFailure extends Error {
  constructor(
    readonly code: RunFailureCode,
    message: string,
    readonly delivery: Delivery = "not_sent",
    readonly receipt: Receipt | null = null,
    readonly completion: Completion | null = null,
    /** Gate failures (policy, invalid input, closed at the gate) carry no effects at all. */
    readonly atGate = false,
  ) {
    super(message);
  }
}

export function failurePayload(failure: RunFailure): ToolPayload {
  const error: ToolPayload & { ok: false } = {
    ok: false,
    error: { code: failure.code, message: failure.message, delivery: failure.delivery },
  };
  if (!failure.atGate) {
    error.error.effects = {
      state: failure.receipt ? "known" : failure.delivery === "not_sent" ? "none" : "unknown",
      authorization: failure.receipt,
      completion: failure.completion ?? { state: "unobserved" },
    };
  }
  return error;
}
