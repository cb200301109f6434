// A tool's answer (tool_payload.ts) as MCP sends it: the payload as structuredContent, with
// failures as tool results (isError) rather than JSON-RPC errors, so an agent always gets
// something it can read and act on. Clients show a model the text content, not
// structuredContent (issue 27), so the text is for reading: a success's JSON unless its tool
// words it (tmux_run), a failure's message said once in a line, never a JSON copy a client then
// escapes again inside its own.
import type { CallToolResult } from "../deps.ts";
import { rope, ropePieces } from "../util/rope.ts";
import type { ErrorBody, ToolPayload } from "./tool_payload.ts";

/**
 * The payloads made into results below, with their JSON in pieces, by the object inside them
 * (`data` or `error`): the SDK checks a tools/call result against the era's wire schema and
 * passes on what its parse returns, which keeps the payload itself on 2026-07-28
 * (structuredContent is unknown there) but copies it on 2025-11-25 (a record): the value inside
 * is kept either way.
 */
const madeHere = new WeakMap<object, Made>();

type Made = {
  payload: ToolPayload;
  /** The text content, a rope of `textPieces`. */
  text: string;
  /** The payload's JSON, in pieces. */
  pieces: string[];
  /** The text content's pieces; null when the text is the payload's JSON itself. */
  textPieces: string[] | null;
};

/**
 * A string longer than this goes into a payload's JSON as pieces of at most this many code
 * units, each escaped on its own, and the JSON text is those pieces joined without a copy (a
 * rope V8 flattens only if something reads it as a whole): a full-size tmux_run payload's JSON
 * (530 KB) was otherwise one more large object, and on this project's VMs every fresh page of
 * one costs a fault of about 17 µs (docs/design/perl_launcher.md).
 */
const PIECE = 32768;

/** Stands for a long string in the payload's JSON until its pieces go in: random, so unique. */
const LONG_MARK = `tmux-mcp long ${crypto.randomUUID()} `;

/**
 * The result a payload is sent as. `worded` is the text content as pieces, when the tool words
 * its payload itself; otherwise a success's text is its JSON and a failure's is `errorText`.
 * `lead`, a line the text starts with (what became of calls the client gave up on).
 */
export function toCallToolResult(
  payload: ToolPayload,
  worded?: string[],
  lead?: string,
): CallToolResult {
  const pieces = jsonPieces(payload);
  const own = worded ?? (payload.ok ? null : [errorText(payload.error)]);
  const textPieces = lead ? [lead, ...own ?? pieces] : own;
  const text = rope(textPieces ?? pieces);
  const result: CallToolResult = {
    content: [{ type: "text", text }],
    structuredContent: payload,
    isError: !payload.ok,
  };
  const inner = payload.ok ? payload.data : payload.error;
  if (typeof inner === "object" && inner !== null) {
    madeHere.set(inner, { payload, text, pieces, textPieces });
  }
  return result;
}

/**
 * A failure as one line to read: `error CODE (delivery: D): MESSAGE`, every field of the error
 * the general tools' schema has, the message said once and unescaped.
 */
export function errorText(error: ErrorBody): string {
  return `error ${error.code} (delivery: ${error.delivery}): ${error.message}`;
}

/**
 * `JSON.stringify(value)` as pieces: JSON.stringify writes everything but strings longer than
 * PIECE, which go in escaped piece by piece: a rope's own pieces (lib/util/rope.ts), read without
 * joining them, else slices of at most PIECE code units, never between the two halves of a
 * surrogate pair (a writer would encode each half as a replacement character).
 */
export function jsonPieces(value: unknown): string[] {
  const long: string[][] = [];
  const skeleton = JSON.stringify(value, function (this: object, key: string, item: unknown) {
    if (typeof item !== "string" || item.length <= PIECE) return item;
    return `${LONG_MARK}${long.push(ropePieces(this, key, item) ?? slices(item)) - 1}`;
  });
  if (long.length === 0) return [skeleton];
  const pieces: string[] = [];
  let from = 0;
  for (const [index, texts] of long.entries()) {
    const mark = `"${LONG_MARK}${index}"`;
    const at = skeleton.indexOf(mark, from);
    pieces.push(skeleton.slice(from, at), '"');
    for (const text of texts) pieces.push(JSON.stringify(text).slice(1, -1));
    pieces.push('"');
    from = at + mark.length;
  }
  pieces.push(skeleton.slice(from));
  return pieces;
}

/** `text` in slices of at most PIECE code units, never between the halves of a pair. */
function slices(text: string): string[] {
  const out: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + PIECE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

/**
 * A result's structuredContent as JSON, and its text content as a JSON string, both in pieces,
 * as toCallToolResult made them (so a writer can serialize the payload once, not twice, and
 * never as one string); null when that is not known. The structuredContent is the payload made
 * here or a copy of it holding the same values under the same keys in the same order, and the
 * text is the one made with it. `text` is null when the text content is the payload's JSON
 * itself, to be written from `payload` (lib/mcp/wire/line_writer.ts `asJsonString`).
 */
export function resultPiecesOf(
  result: unknown,
): { payload: string[]; text: string[] | null } | null {
  if (!isRecord(result) || !isRecord(result.structuredContent)) return null;
  const content = result.content;
  if (!Array.isArray(content) || content.length !== 1 || !isRecord(content[0])) return null;
  const copy = result.structuredContent;
  const inner = copy.ok === true ? copy.data : copy.error;
  if (typeof inner !== "object" || inner === null) return null;
  const made = madeHere.get(inner);
  if (made === undefined || content[0].type !== "text" || content[0].text !== made.text) {
    return null;
  }
  if (copy !== made.payload && !sameEntries(copy, made.payload)) return null;
  return {
    payload: made.pieces,
    text: made.textPieces && ['"', ...made.textPieces.map(escapedInString), '"'],
  };
}

/** A piece of text as it goes between a JSON string's quotes. */
function escapedInString(piece: string): string {
  return JSON.stringify(piece).slice(1, -1);
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
