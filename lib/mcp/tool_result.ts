// One shape for every tool's answer, success or failure: `{ok, data}` or
// `{ok:false, error:{code, message, delivery, ...}}`, sent as JSON text and as
// structuredContent, with failures as tool results (isError) rather than JSON-RPC errors, so an
// agent always gets something it can read and act on.
import type { CallToolResult } from "../deps.ts";

export type Delivery = "not_sent" | "possibly_sent" | "observed";

export type ErrorBody = {
  code: string;
  message: string;
  delivery: Delivery;
  effects?: unknown;
};

export type ToolPayload = { ok: true; data: unknown } | { ok: false; error: ErrorBody };

export function toCallToolResult(payload: ToolPayload): CallToolResult {
  const text = JSON.stringify(payload);
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    structuredContent: payload,
    isError: !payload.ok,
  };
  return result;
}

export function success(data: unknown): ToolPayload {
  return { ok: true, data };
}

/** A failure before anything reached tmux or a shell. */
export function refusal(code: string, message: string): Extract<ToolPayload, { ok: false }> {
  return { ok: false, error: { code, message, delivery: "not_sent" } };
}

export const POLICY_DENIED = refusal(
  "policy_denied",
  "this tool is not enabled on this server; it is turned on by name at startup",
);
