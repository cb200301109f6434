// JSON-RPC lines onto a byte sink (stdout), whole and in order, with as little copying as a 1 MiB
// answer allows: a line is encoded piece by piece into one reused buffer, not encoded into one
// new array per answer. Less garbage per answer means fewer collections for V8 (bench/bench.ts,
// the full-size output).

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
