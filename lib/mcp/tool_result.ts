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

/**
 * The payloads made into results below, with their JSON, by the object inside them (`data` or
 * `error`): the SDK checks a tools/call result against the era's wire schema and passes on what
 * its parse returns, which keeps the payload itself on 2026-07-28 (structuredContent is unknown
 * there) but copies it on 2025-11-25 (a record): the value inside is kept either way.
 */
const madeHere = new WeakMap<object, { payload: ToolPayload; json: string }>();

export function toCallToolResult(payload: ToolPayload): CallToolResult {
  const text = JSON.stringify(payload);
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    structuredContent: payload,
    isError: !payload.ok,
  };
  const inner = payload.ok ? payload.data : payload.error;
  if (typeof inner === "object" && inner !== null) madeHere.set(inner, { payload, json: text });
  return result;
}

/**
 * The JSON of a result's structuredContent when its one text content is exactly that JSON, as
 * toCallToolResult made it (so a writer can serialize the payload once, not twice); null when
 * that is not known. The structuredContent is the payload made here or a copy of it holding the
 * same values under the same keys in the same order, and the text is the one made with it.
 */
export function payloadJsonOf(result: unknown): string | null {
  if (!isRecord(result) || !isRecord(result.structuredContent)) return null;
  const content = result.content;
  if (!Array.isArray(content) || content.length !== 1 || !isRecord(content[0])) return null;
  const copy = result.structuredContent;
  const inner = copy.ok === true ? copy.data : copy.error;
  if (typeof inner !== "object" || inner === null) return null;
  const made = madeHere.get(inner);
  if (made === undefined || content[0].type !== "text" || content[0].text !== made.json) {
    return null;
  }
  return copy === made.payload || sameEntries(copy, made.payload) ? made.json : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The same keys in the same order, each with the identical value. */
function sameEntries(copy: Record<string, unknown>, payload: object): boolean {
  const copied = Object.entries(copy);
  const made = Object.entries(payload);
  return copied.length === made.length &&
    copied.every(([key, value], at) => made[at][0] === key && made[at][1] === value);
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
