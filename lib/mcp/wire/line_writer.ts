// JSON-RPC lines onto a byte sink (stdout), whole and in order, with as little copying as a 1 MiB
// answer allows. A full-size tmux_run result carries its payload twice (as text content and as
// structuredContent): the payload is serialized once and written twice, and the line is encoded
// piece by piece into one reused buffer, not built as one string and encoded into one array.
// Less garbage per answer means fewer collections for V8 (bench/bench.ts, the full-size output).
import type { JSONRPCMessage } from "../../deps.ts";
import { payloadJsonOf } from "../tool_result.ts";

/** How much of a line is encoded and written at a time at first: a pipe's capacity. */
const WRITE_BYTES = 65536;
/**
 * How far the buffer grows for a longer line, once one comes. A line written in one call is one
 * blocking write in Deno's worker thread, the pipe's back-and-forth with the reader left to the
 * kernel; in 64 KiB calls each one returned to JavaScript first. The client had a full-size
 * tmux_run answer (1.05 MB) 1.6-1.7 ms after its first byte instead of 2.5-2.8 ms (p50 of 40,
 * timestamps in the bench's client, two runs each way), for 1 MiB kept in the server from then on.
 */
const MAX_WRITE_BYTES = 1024 * 1024;

/** How much of a long payload is escaped into one piece of its text content. */
const ESCAPE_CHUNK = 32768;

/**
 * `JSON.stringify(json)` for a string that is itself JSON text, as pieces of at most
 * ESCAPE_CHUNK code units. Such text holds no control character and no lone surrogate (JSON
 * escapes them), so `"` and `\` are all there is to escape. Pieces, not one string: a full-size
 * answer's 530 KB text content was one more large string for V8 to collect, and without it the
 * server spent 6.2-6.4 ms of CPU per full-size run instead of 7.0-7.1 (bench/cpu_per_run.ts, two
 * runs each way). A piece never ends between the two halves of a surrogate pair, which the writer
 * would encode as two replacement characters.
 */
export function asJsonString(json: string): string[] {
  const pieces = ['"'];
  for (let at = 0; at < json.length;) {
    let end = Math.min(json.length, at + ESCAPE_CHUNK);
    const last = json.charCodeAt(end - 1);
    if (end < json.length && last >= 0xd800 && last <= 0xdbff) end--;
    pieces.push(json.slice(at, end).replace(/["\\]/g, "\\$&"));
    at = end;
  }
  pieces.push('"');
  return pieces;
}

/** The line for `message`, newline included, as pieces to write one after another. */
export function messageLine(message: JSONRPCMessage): string[] {
  if ("result" in message) {
    const payload = payloadJsonOf(message.result);
    if (payload !== null) {
      const isError = message.result.isError === true;
      return [
        `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"content":[{"type":"text",` +
        `"text":`,
        ...asJsonString(payload),
        `}],"structuredContent":`,
        payload,
        `,"isError":${isError}}}\n`,
      ];
    }
  }
  return [`${JSON.stringify(message)}\n`];
}

export class LineWriter {
  #buffer = new Uint8Array(WRITE_BYTES);
  #encoder = new TextEncoder();
  #previous: Promise<void> = Promise.resolve();

  constructor(private readonly sink: (bytes: Uint8Array) => Promise<number>) {}

  /** Writes the pieces after every line written before; resolves once all are written. */
  write(pieces: string[]): Promise<void> {
    const written = this.#previous.then(() => this.#writeNow(pieces));
    this.#previous = written.catch(() => {});
    return written;
  }

  /**
   * Resolves once every line handed over so far is written and, a turn of the event loop later,
   * no new one has come: shutdown waits for it so the answers it caused reach the client.
   */
  async idle(): Promise<void> {
    while (true) {
      const last = this.#previous;
      await last;
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (last === this.#previous) return;
    }
  }

  /**
   * Encodes the pieces one after another into the buffer and writes it when it is full and at
   * the end: an answer that fits is one write, however many pieces it came in (a write per
   * piece cost an answer about 0.5 ms before the client had all of it).
   */
  async #writeNow(pieces: string[]): Promise<void> {
    const length = pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (length > this.#buffer.length && this.#buffer.length < MAX_WRITE_BYTES) {
      this.#buffer = new Uint8Array(MAX_WRITE_BYTES);
    }
    let filled = 0;
    for (const piece of pieces) {
      let offset = 0;
      while (offset < piece.length) {
        const chunk = this.#encoder.encodeInto(
          offset ? piece.substring(offset) : piece,
          this.#buffer.subarray(filled),
        );
        offset += chunk.read;
        filled += chunk.written;
        if (offset < piece.length) {
          await this.#flush(filled);
          filled = 0;
        }
      }
    }
    await this.#flush(filled);
  }

  async #flush(length: number): Promise<void> {
    for (let at = 0; at < length;) at += await this.sink(this.#buffer.subarray(at, length));
  }
}
