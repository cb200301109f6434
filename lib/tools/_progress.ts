// One meaning of progress for every call that lasts (wait_for_text, run_command and
// wait_for_command, tmux_run): the progress value is the seconds since the call began, and the
// message says the step, those seconds, and what is known so far. A client that resets its
// request timeout on progress (most do) hears from a call at least once a second while a step
// lasts, and an agent reading the messages sees the same shape from each tool.
import type { ToolExtra } from "./context.ts";

/** How often a lasting step reports. */
export const PROGRESS_INTERVAL_MS = 1000;

/** The message of one report: `waiting for text: 3 s elapsed`, then what is known, if anything. */
export function progressMessage(step: string, seconds: number, known: string): string {
  return `${step}: ${Math.floor(seconds)} s elapsed${known ? `; ${known}` : ""}`;
}

export class CallProgress {
  readonly #progress: ToolExtra["progress"];
  readonly #began = Date.now();
  #last = 0;
  #reportedAt = this.#began;

  constructor(progress: ToolExtra["progress"]) {
    this.#progress = progress;
  }

  /** Whether the client asked for progress at all. */
  get wanted(): boolean {
    return this.#progress !== undefined;
  }

  /** Reports now. The value always rises, even for two reports in one millisecond. */
  say(step: string, known = ""): void {
    if (!this.#progress) return;
    const seconds = (Date.now() - this.#began) / 1000;
    this.#last = Math.max(seconds, this.#last + 0.001);
    this.#reportedAt = Date.now();
    this.#progress(this.#last, progressMessage(step, seconds, known));
  }

  /** Reports if PROGRESS_INTERVAL_MS have passed since the last report (for a polling loop). */
  due(step: string, known = ""): void {
    if (Date.now() - this.#reportedAt >= PROGRESS_INTERVAL_MS) {
      this.say(step, known);
    }
  }

  /**
   * Runs `work`, reporting when it starts and then every PROGRESS_INTERVAL_MS until it ends;
   * `known` says what is known at each report.
   */
  async during<T>(step: string, work: () => Promise<T>, known = () => ""): Promise<T> {
    if (!this.#progress) return await work();
    this.say(step, known());
    const timer = setInterval(() => this.say(step, known()), PROGRESS_INTERVAL_MS);
    try {
      return await work();
    } finally {
      clearInterval(timer);
    }
  }
}
