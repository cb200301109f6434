// Where capture cursors live. A cursor names a position in a pane's grid and the text just
// before it, which can be screen text: handed to a client whole it was 200 to 600 characters of
// base64 carrying what the pane showed. Instead the server keeps it and hands out a short
// random handle. Keeping costs memory, so the store holds a bounded number for a bounded time
// (idle ones expire; past the cap the least recently used go first), and a handle it no longer
// holds is answered as expired, one it never made (another server, or before a restart) as
// foreign: never as a fresh start, which would pass an old screen off as new output.
import { randomHex } from "../util/ids.ts";

/**
 * What a server keeps: a cursor holds at most four lines of text and a digest per screen row,
 * so this many stay within a few megabytes.
 */
export const CURSORS_KEPT = 2048;
/** How long an unused cursor is kept: longer than an agent's pause between two looks. */
export const CURSOR_IDLE_MS = 30 * 60 * 1000;

/** How a handle was not found: let go of (`expired`), or never made here (`foreign`). */
export type CursorMiss = "expired" | "foreign";

export type CursorStoreOptions = {
  /** The most cursors held; past it the least recently used one is forgotten. */
  capacity: number;
  /** How long a cursor lives since it was made or last used. */
  idleMs: number;
  now?: () => number;
};

/** Handles look like `c.<store>.<cursor>`: 2 + 8 + 1 + 16 = 27 characters. */
const HANDLE = /^c\.([0-9a-f]{8})\.([0-9a-f]{16})$/;

export class CursorStore<T> {
  readonly #tag = randomHex(4);
  readonly #entries = new Map<string, { value: T; usedAt: number }>();
  readonly #capacity: number;
  readonly #idleMs: number;
  readonly #now: () => number;

  constructor(options: CursorStoreOptions) {
    this.#capacity = options.capacity;
    this.#idleMs = options.idleMs;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Keeps `value` and returns its handle. */
  issue(value: T): string {
    this.#forgetIdle();
    const id = randomHex(8);
    this.#entries.set(id, { value, usedAt: this.#now() });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#capacity) break;
      this.#entries.delete(oldest);
    }
    return `c.${this.#tag}.${id}`;
  }

  /** The value behind `handle`, which lives on from now; or why there is none. */
  look(handle: string): { ok: true; value: T } | { ok: false; miss: CursorMiss } {
    const parts = HANDLE.exec(handle);
    if (!parts || parts[1] !== this.#tag) return { ok: false, miss: "foreign" };
    this.#forgetIdle();
    const entry = this.#entries.get(parts[2]);
    if (!entry) return { ok: false, miss: "expired" };
    this.#entries.delete(parts[2]);
    entry.usedAt = this.#now();
    this.#entries.set(parts[2], entry);
    return { ok: true, value: entry.value };
  }

  /** Entries are kept in order of use, so the idle ones are at the front. */
  #forgetIdle(): void {
    const oldestKept = this.#now() - this.#idleMs;
    for (const [id, entry] of this.#entries) {
      if (entry.usedAt > oldestKept) break;
      this.#entries.delete(id);
    }
  }
}
