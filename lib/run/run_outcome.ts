// The one place where a tmux_run failure becomes `{code, delivery, effects}`. Phases throw a
// RunFailure carrying what they know (the receipt once the guard granted, a completion once the
// helper read one); this module derives `effects` from that, so no phase can report a state
// that contradicts the evidence it holds.
import type { Completion } from "./frames.ts";
import type { Delivery, ToolPayload } from "../mcp/tool_payload.ts";

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

/** What a phase knows when it fails; what it leaves out is what it does not hold. */
export type RunFailureFacts = {
  code: RunFailureCode;
  message: string;
  /** Default `not_sent`: nothing reached the helper. */
  delivery?: Delivery;
  /** The guard's receipt, once it granted the run. */
  receipt?: Receipt | null;
  /** How the script ended, once the helper read it. */
  completion?: Completion | null;
  /** Gate failures (policy, invalid input, closed at the gate) carry no effects at all. */
  atGate?: boolean;
};

export class RunFailure extends Error {
  readonly code: RunFailureCode;
  readonly delivery: Delivery;
  readonly receipt: Receipt | null;
  readonly completion: Completion | null;
  readonly atGate: boolean;

  constructor(facts: RunFailureFacts) {
    super(facts.message);
    this.code = facts.code;
    this.delivery = facts.delivery ?? "not_sent";
    this.receipt = facts.receipt ?? null;
    this.completion = facts.completion ?? null;
    this.atGate = facts.atGate ?? false;
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
