// The runs in flight as the enrolled shells hold them: the one slot a shell may have, the queue
// its run's events arrive on (put there by lib/run/shell_session.ts), and RunSlots, the only
// writer of a shell's slot, which counts the runs per server and stops them all at shutdown.
import type { HelperMessage, ServerMessage } from "./frames.ts";
import { randomHex } from "../util/ids.ts";
import type { ProcessIdentity } from "../host/processes.ts";
import { RecentRuns } from "./recent_runs.ts";

/** How long shutdown waits for in-flight runs to stop and answer (spec: 2 s in all). */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * Why the enrollment ended: the shell's line channel or the helper's frame link went away, or a
 * second connection presented the pane's invitation, so which one is the shell is in doubt.
 */
export type Departure = "shell" | "helper" | "contested";

export type RunEvent =
  | { kind: "busy" }
  | { kind: "ready"; token: string; digest: string; helperPid: number }
  | { kind: "helper"; message: HelperMessage; body: Uint8Array }
  | { kind: "gone"; cause: Departure };

/** The one run a shell may have in flight, and the events that reach it. */
export type RunSlot = { runId: string; events: EventQueue<RunEvent> };

export class EventQueue<T> {
  #items: T[] = [];
  #waiter: ((item: T) => void) | null = null;

  push(item: T): void {
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter(item);
    } else this.#items.push(item);
  }

  /** The next event, or the signal's reason thrown when it aborts first. */
  next(signal: AbortSignal): Promise<T> {
    if (this.#items.length) return Promise.resolve(this.#items.shift()!);
    signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#waiter = null;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiter = (item) => {
        signal.removeEventListener("abort", onAbort);
        resolve(item);
      };
    });
  }
}

/** An enrolled shell as its runs use it; lib/run/shell_session.ts makes one per accepted shell. */
export type EnrolledShell = {
  paneId: string;
  identity: ProcessIdentity;
  /** The tmux server process that owned the pane at enrollment. */
  tmuxServer: ProcessIdentity | null;
  processGeneration: string;
  enrollmentGeneration: string;
  helperPid: number;
  /** The run in flight; written only by RunSlots. */
  run: RunSlot | null;
  sendLine: (line: string) => Promise<void>;
  sendFrame: (message: ServerMessage, body?: Uint8Array) => Promise<void>;
  /**
   * Ends the enrollment. With a run in flight the run is told (a "gone" event) and keeps the
   * helper link so it can stop the script; the run's retire step calls `release`.
   */
  discard: (cause?: Departure) => void;
  /** Closes both connections once no run needs them (or at once, `force`d at shutdown). */
  release: (force?: boolean) => void;
};

/**
 * The runs in flight and the only writer of `EnrolledShell.run`: one slot per shell, a count
 * per server, and shutdown, which tells every run to stop and waits for its answer. The last
 * runs' outcomes stay readable in `recent` (tmux_capabilities lists them).
 */
export class RunSlots {
  readonly recent = new RecentRuns();
  #inFlight = 0;
  #runs = new Set<Promise<unknown>>();
  #closing = new AbortController();

  /** Aborts (with no reason a caller could mistake for a deadline) when shutdown begins. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** A fresh slot on `shell`, or why there is none: its own run, or `limit` runs in flight. */
  take(shell: EnrolledShell, limit: number): RunSlot | "shell_busy" | "server_full" {
    if (shell.run) return "shell_busy";
    if (this.#inFlight >= limit) return "server_full";
    const slot: RunSlot = { runId: randomHex(), events: new EventQueue<RunEvent>() };
    shell.run = slot;
    this.#inFlight++;
    return slot;
  }

  /** Shutdown waits for `run` to settle (its group stopped, its call answered). */
  track<T>(run: Promise<T>): Promise<T> {
    this.#runs.add(run);
    run.finally(() => this.#runs.delete(run)).catch(() => {});
    return run;
  }

  free(shell: EnrolledShell, slot: RunSlot): void {
    if (shell.run === slot) shell.run = null;
    shell.release();
    this.#inFlight--;
  }

  /** Tells the runs in flight to stop, and waits for them within the shutdown grace. */
  async close(): Promise<void> {
    this.#closing.abort();
    if (!this.#runs.size) return;
    const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS));
    await Promise.race([Promise.allSettled([...this.#runs]), grace]);
  }
}
