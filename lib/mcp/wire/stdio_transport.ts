// MCP over stdin/stdout, one JSON-RPC message per line, with nothing dropped silently. The MCP
// SDK's stdio transport closes the session (and so the server, with status 0) when a line passes
// its 10 MiB read buffer, and answers nothing to a line that is not JSON. Here a line that is
// not JSON gets -32700, a message that is not JSON-RPC gets -32600 (-32602 when only its params
// are wrong, its `_meta` included: json_rpc.ts says which shapes the SDK drops), a numeric id
// JavaScript cannot hold exactly is echoed as the digits it came as, and an oversized line is read through to its end without being kept: its id is
// picked out on the way, so it gets -32600 saying how large a line may be. Only an oversized
// line whose id cannot be read ends the server, after one line on stderr, through the caller's
// onUnanswerable (which exits non-zero): its client would otherwise wait for ever.
import process from "node:process";
import type { JSONRPCMessage, Transport } from "../../deps.ts";
import {
  type AnswerId,
  answerJson,
  type ErrorAnswer,
  errorAnswer,
  IdLiteral,
  INVALID_REQUEST,
  type JsonRpcId,
  jsonRpcMessageOf,
  PARSE_ERROR,
  parseMessageLine,
} from "./json_rpc.ts";
import { concatBytes } from "../../util/bytes.ts";
import { LineWriter, messageLine } from "./line_writer.ts";
import { errorLine } from "./error_lines.ts";
import { type Answer, BATCH_REVISION, Batches } from "./batches.ts";
import { isJsonObject } from "../../util/json_object.ts";

/** The SDK's read buffer, kept as our limit: the longest line (in bytes) read as a message. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Finds the top-level "id" of one JSON object fed to it in pieces, keeping only the bytes of
 * top-level keys and of the id itself: memory stays small whatever the size of the line.
 */
class TopLevelIdScanner {
  id: JsonRpcId | IdLiteral | undefined;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #capture: number[] | null = null;
  #expectKey = false;
  #key: string | null = null;
  #awaitingId = false;
  #number: string | null = null;

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) this.#step(byte);
  }

  #step(byte: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false;
      else if (byte === 0x5c) this.#escaped = true;
      else if (byte === 0x22) return this.#endString();
      if (this.#capture && this.#capture.push(byte) > 1024) this.#capture = null;
      return;
    }
    const char = String.fromCharCode(byte);
    if (this.#number !== null) {
      if (/[0-9eE.+-]/.test(char)) {
        this.#number += char;
        return;
      }
      this.id ??= idOfNumber(this.#number);
      this.#number = null;
    }
    const atTop = this.#depth === 1;
    if (char === '"') {
      this.#inString = true;
      this.#capture = atTop && (this.#expectKey || this.#awaitingId) ? [] : null;
    } else if (char === "{" || char === "[") {
      if (atTop) this.#awaitingId = false;
      this.#depth++;
      this.#expectKey = this.#depth === 1 && char === "{";
    } else if (char === "}" || char === "]") {
      this.#depth--;
    } else if (atTop && char === ":") {
      this.#expectKey = false;
      this.#awaitingId = this.#key === "id";
    } else if (atTop && char === ",") {
      this.#expectKey = true;
      this.#awaitingId = false;
      this.#key = null;
    } else if (atTop && this.#awaitingId && /[-0-9]/.test(char)) {
      this.#number = char;
      this.#awaitingId = false;
    } else if (atTop && this.#awaitingId && !/\s/.test(char)) {
      this.#awaitingId = false;
    }
  }

  #endString(): void {
    this.#inString = false;
    const captured = this.#capture;
    this.#capture = null;
    if (!captured) return;
    let text: string;
    try {
      text = JSON.parse(`"${new TextDecoder().decode(new Uint8Array(captured))}"`);
    } catch {
      return;
    }
    if (this.#expectKey) this.#key = text;
    else if (this.#awaitingId) {
      this.id ??= text;
      this.#awaitingId = false;
    }
  }
}

export class StdioLineTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  #parts: Uint8Array[] = [];
  #length = 0;
  #oversized: TopLevelIdScanner | null = null;
  #onUnanswerable: () => void;
  #closed = false;
  #lines = new LineWriter((bytes) => Deno.stdout.write(bytes));
  #batches = new Batches();

  constructor(options: { onUnanswerable: () => void }) {
    this.#onUnanswerable = options.onUnanswerable;
  }

  start(): Promise<void> {
    process.stdin.on("data", this.#ondata);
    process.stdin.on("error", this.#onerror);
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    process.stdin.off("data", this.#ondata);
    process.stdin.off("error", this.#onerror);
    process.stdin.pause();
    this.#parts = [];
    this.onclose?.();
    return Promise.resolve();
  }

  /** Resolves once every answer sent so far is written (lib/mcp/wire/line_writer.ts). */
  written(): Promise<void> {
    return this.#lines.idle();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.#batches.observe(message);
    // The SDK's refusals can be a multi-line dump of its schema errors: one bounded line.
    const sent = "error" in message
      ? { ...message, error: { ...message.error, ...errorLine(message.error) } }
      : message;
    const batch = this.#batches.hold(sent);
    if (batch === undefined) return this.#lines.write(messageLine(sent));
    return batch === null ? Promise.resolve() : this.#writeArray(batch);
  }

  #write(answer: ErrorAnswer): Promise<void> {
    return this.#lines.write([`${answerJson(answer)}\n`]);
  }

  #writeArray(answers: Answer[]): Promise<void> {
    return this.#lines.write([`[${answers.map(answerJson).join(",")}]\n`]);
  }

  #onerror = (error: Error) => this.onerror?.(error);

  #ondata = (chunk: Uint8Array) => {
    let start = 0;
    while (start <= chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      this.#append(chunk.subarray(start, end < 0 ? chunk.length : end));
      if (end < 0) return;
      this.#endLine();
      start = end + 1;
    }
  };

  #append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (!this.#oversized && this.#length + piece.length > MAX_LINE_BYTES) {
      this.#oversized = new TopLevelIdScanner();
      for (const part of this.#parts) this.#oversized.feed(part);
      this.#parts = [];
      this.#length = 0;
    }
    if (this.#oversized) this.#oversized.feed(piece);
    else {
      // A copy (Buffer.slice would be a view): the line outlives the chunk it came in.
      this.#parts.push(new Uint8Array(piece));
      this.#length += piece.length;
    }
  }

  #endLine(): void {
    const oversized = this.#oversized;
    const parts = this.#parts;
    this.#oversized = null;
    this.#parts = [];
    this.#length = 0;
    if (oversized) return this.#refuseOversized(oversized.id);
    const line = new TextDecoder().decode(concatBytes(parts)).replace(/\r$/, "");
    if (line.trim() === "") return;
    let json: unknown;
    try {
      json = parseMessageLine(line);
    } catch {
      return this.#reply(null, PARSE_ERROR, "the line is not JSON");
    }
    if (Array.isArray(json)) return this.#takeBatch(json);
    if (!isJsonObject(json)) {
      return this.#reply(null, INVALID_REQUEST, "a message must be one JSON object");
    }
    const taken = this.#take(json);
    if (taken === null) return;
    if ("pass" in taken) this.onmessage?.(taken.pass);
    else this.#write(taken.answer).catch((error) => this.onerror?.(error));
  }

  /**
   * `json` as the message to hand on, or the error that answers it instead, or null when it is
   * a malformed notification, which has nothing to answer.
   */
  #take(json: Record<string, unknown>): { pass: JSONRPCMessage } | { answer: ErrorAnswer } | null {
    const message = jsonRpcMessageOf(json);
    if (!("code" in message)) return { pass: message };
    const id = readableId(json);
    // A message with neither a method nor an id is an invalid request whose id cannot be read,
    // answered with a null id (JSON-RPC 2.0).
    if (id === undefined) {
      return "method" in json
        ? null
        : { answer: errorAnswer(null, INVALID_REQUEST, notMessage(message.reason)) };
    }
    const text = message.code === INVALID_REQUEST ? notMessage(message.reason) : message.reason;
    return { answer: errorAnswer(id, message.code, text) };
  }

  /** A batch: each member handed on alone, its requests' answers sent back as one array. */
  #takeBatch(members: unknown[]): void {
    if (!this.#batches.accepted) {
      return this.#reply(
        null,
        INVALID_REQUEST,
        `batches are part of MCP ${BATCH_REVISION} only; send one message per line`,
      );
    }
    if (members.length === 0) return this.#reply(null, INVALID_REQUEST, "the batch is empty");
    const messages: JSONRPCMessage[] = [];
    const errors: ErrorAnswer[] = [];
    for (const member of members) {
      const taken = isJsonObject(member)
        ? this.#take(member)
        : { answer: errorAnswer(null, INVALID_REQUEST, "a batch member must be one JSON object") };
      if (taken === null) continue;
      if ("pass" in taken) messages.push(taken.pass);
      else errors.push(taken.answer);
    }
    const ids = messages.flatMap((message) =>
      "method" in message && "id" in message && message.id !== undefined ? [message.id] : []
    );
    const now = this.#batches.open(ids, errors);
    if (now) this.#writeArray(now);
    for (const message of messages) this.onmessage?.(message);
  }

  #refuseOversized(id: JsonRpcId | IdLiteral | undefined): void {
    const limit = `${MAX_LINE_BYTES} bytes`;
    if (id === undefined) {
      console.error(
        `tmux-mcp: a message longer than ${limit} arrived with no id to answer; stopping`,
      );
      this.#onUnanswerable();
      return;
    }
    this.#reply(
      id,
      INVALID_REQUEST,
      `the request is longer than ${limit}, the most this server reads in one line; send less`,
    );
  }

  /** An error for a message the session never sees; JSON-RPC answers an unreadable id with null. */
  #reply(id: AnswerId, code: number, message: string): void {
    this.#write(errorAnswer(id, code, message)).catch((error) => this.onerror?.(error));
  }
}

function notMessage(reason: string): string {
  return `not a JSON-RPC 2.0 message: ${reason}`;
}

/**
 * A numeric id read from an oversized line's text: a number when JavaScript holds it exactly, its
 * digits (IdLiteral) when it is a JSON number it does not, undefined when the text is no number.
 */
function idOfNumber(text: string): JsonRpcId | IdLiteral | undefined {
  if (!/^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : new IdLiteral(text);
}

/** The id an answer to `json` echoes: as sent, null when it is no id, undefined when absent. */
function readableId(json: object): AnswerId | undefined {
  if (!("id" in json)) return undefined;
  const id = json.id;
  if (typeof id === "string" || typeof id === "number" || id instanceof IdLiteral) return id;
  return null;
}
