// Spots one known text in a pane's output as control mode reports it, so a caller that waits for
// that text looks at the pane once it is there instead of at every write. `%output` data has
// every byte below 32 and `\` written as an octal escape; a text of printable ASCII without `\`
// reads the same escaped, so it is searched in the data as it comes, undecoded. Text split
// across two events is found too: the end of each event is kept until the next.
import { concatBytes } from "../util/bytes.ts";

const SPOTTABLE = /^[\x20-\x5b\x5d-\x7e]+$/;

export class OutputSpotter {
  #needle: Uint8Array;
  #tail = new Uint8Array(0);
  #seen = false;
  #waiters = new Set<() => void>();

  constructor(text: string) {
    if (!SPOTTABLE.test(text)) throw new Error("a spotted text must be printable ASCII without \\");
    this.#needle = new TextEncoder().encode(text);
  }

  get seen(): boolean {
    return this.#seen;
  }

  /** The (escaped) data of one `%output` event of the pane. */
  feed(data: Uint8Array): void {
    if (this.#seen) return;
    const haystack = this.#tail.length ? concatBytes([this.#tail, data]) : data;
    if (contains(haystack, this.#needle)) {
      this.#seen = true;
      this.#tail = new Uint8Array(0);
      for (const wake of [...this.#waiters]) wake();
      return;
    }
    this.#tail = haystack.slice(Math.max(0, haystack.length - this.#needle.length + 1));
  }

  /** Resolves once the text was seen, after `ms`, or on abort; true when it was seen. */
  seenWithin(ms: number, signal: AbortSignal): Promise<boolean> {
    if (this.#seen || signal.aborted) return Promise.resolve(this.#seen);
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        this.#waiters.delete(done);
        resolve(this.#seen);
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
      this.#waiters.add(done);
    });
  }

  /** Wakes every wait at once: the output stopped coming (the connection ended). */
  release(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  for (let at = haystack.indexOf(needle[0]); at !== -1; at = haystack.indexOf(needle[0], at + 1)) {
    if (at + needle.length > haystack.length) return false;
    let i = 1;
    while (i < needle.length && haystack[at + i] === needle[i]) i++;
    if (i === needle.length) return true;
  }
  return false;
}
