// JSON-RPC lines onto a byte sink (stdout), whole and in order, with as little copying as a 1 MiB
// answer allows. A full-size tmux_run result carries its outputs twice (in its text content and
// in structuredContent): each is written from the pieces it was made in, never joined, and the
// line is encoded piece by piece into one reused buffer, not built as one string and encoded
// into one array.
// Less garbage per answer means fewer collections for V8: a full-size tmux_run cost the server
// 14-18 ms of CPU and 194-256 page faults this way against 24-31 ms and 771-840 with the whole
// message through JSON.stringify (bench/cpu_per_run.ts 60, four interleaved pairs). It rests on
// recognising the SDK's copy of a result (tool_result.ts `resultPiecesOf`), which
// tests/result_lines_test.ts holds through the real SDK in both eras.
import type { JSONRPCMessage } from "../../deps.ts";
import { resultPiecesOf } from "../tool_result.ts";

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

/**
 * Stand-ins for the text content and the structuredContent while the rest of a result message
 * is serialized: random, so no other field of the message holds them.
 */
const TEXT_MARK = `tmux-mcp text ${crypto.randomUUID()}`;
const PAYLOAD_MARK = `tmux-mcp payload ${crypto.randomUUID()}`;

/**
 * `JSON.stringify(json)` for JSON text given as pieces (tool_result.ts `jsonPieces`), as pieces:
 * such text holds no control character and no lone surrogate (JSON escapes them), so `"` and `\`
 * are all there is to escape, piece by piece.
 */
export function asJsonString(pieces: string[]): string[] {
  return ['"', ...pieces.map((piece) => piece.replace(/["\\]/g, "\\$&")), '"'];
}

/**
 * The line for `message`, newline included, as pieces to write one after another: for a tool
 * result made by lib/mcp/tool_result.ts, its structuredContent's JSON goes in from its pieces,
 * and so does its text content (that JSON again, or the tool's own words), every other field
 * (the era's resultType and _meta included) as JSON.stringify writes it, in its place.
 */
export function messageLine(message: JSONRPCMessage): string[] {
  const made = "result" in message ? resultPiecesOf(message.result) : null;
  if (made === null || !("result" in message)) return [`${JSON.stringify(message)}\n`];
  const json = made.payload;
  const result = message.result;
  const [text] = Array.isArray(result.content) ? result.content : [];
  const line = JSON.stringify({
    ...message,
    result: {
      ...result,
      content: [{ ...text, text: TEXT_MARK }],
      structuredContent: PAYLOAD_MARK,
    },
  });
  // The marks need no escaping: JSON.stringify wrote each as itself in quotes.
  const marks = [
    {
      at: line.indexOf(`"${TEXT_MARK}"`),
      length: TEXT_MARK.length + 2,
      pieces: made.text ?? asJsonString(json),
    },
    { at: line.indexOf(`"${PAYLOAD_MARK}"`), length: PAYLOAD_MARK.length + 2, pieces: json },
  ].sort((a, b) => a.at - b.at);
  if (marks[0].at < 0) return [`${JSON.stringify(message)}\n`];
  const pieces: string[] = [];
  let from = 0;
  for (const mark of marks) {
    pieces.push(line.slice(from, mark.at), ...mark.pieces);
    from = mark.at + mark.length;
  }
  pieces.push(`${line.slice(from)}\n`);
  return pieces;
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
