// Long tool calls as MCP tasks: a run that outlives the request that started it, read back by
// task id. One state machine serves both protocol eras (lib/mcp/tasks/task_methods.ts draws each
// era's shapes from it): working → completed (the tool returned a result, even one with isError)
// | failed (it threw) | cancelled, nothing after a terminal state. A task owns the AbortController of its run, so a cancel stops the run (tmux_run stops
// the script's whole process group when its signal aborts) whatever the client's own request
// timeout was; the run itself is still bounded by the tool's own limit (tmux_run: its long
// deadline, --run-timeout-with-progress, 10 minutes by default).
//
// Tasks live in this process's memory only: a restart loses them. At most MAX_TASKS are kept;
// past that, the oldest finished task is forgotten to make room, and when every kept task is
// still working a new one is refused (TaskStoreFull). A finished task is kept for its TTL counted
// from its creation (the client's requested ttl, capped at MAX_TTL_MS; DEFAULT_TTL_MS when it
// asked for none) and always at least KEPT_AFTER_END_MS after its run ends, whatever the ttl: a
// ttl shorter than the run would otherwise lose the result the moment it exists. A working task
// is never forgotten. Expiry is checked on every access against the injected clock, so no timer
// outlives the store. The ids of the last FORGOTTEN_IDS_REMEMBERED forgotten tasks are kept with
// the reason (dropped to make room, or expired), so a late tasks/get can say which happened
// instead of guessing.
import type { CallToolResult, TaskStatus } from "../../deps.ts";
import { randomHex } from "../../util/ids.ts";

export const MAX_TASKS = 64;
export const MAX_TTL_MS = 60 * 60 * 1000;
/** Longer than tmux_run's default long deadline (10 minutes): a run to its end stays readable. */
export const DEFAULT_TTL_MS = 20 * 60 * 1000;
/** A finished task's result stays readable at least this long after its run ends. */
export const KEPT_AFTER_END_MS = 60 * 1000;
/** How many forgotten task ids are remembered with their reason (a few tens of KiB at most). */
export const FORGOTTEN_IDS_REMEMBERED = 1024;
/** How often a client is asked to poll tasks/get. */
export const POLL_INTERVAL_MS = 1000;

/** How a run ended: the tool's own result, or an error it threw (a protocol-level failure). */
export type TaskOutcome =
  | { kind: "result"; result: CallToolResult }
  | { kind: "error"; code: number; message: string };

/** One task as the store knows it; the wire shapes of both eras are drawn from this. */
export type TaskRecord = {
  readonly taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  readonly createdAt: number;
  lastUpdatedAt: number;
  readonly ttlMs: number;
  /** Set once the run has ended, even for a cancelled task (the run's own report of it). */
  outcome?: TaskOutcome;
  /** When the run ended (set with `outcome`). */
  endedAt?: number;
};

/** Why a task this store issued is no longer kept. */
export type ForgottenReason = "dropped_for_room" | "expired";

export class TaskStoreFull extends Error {}
/** tasks/cancel on a task already completed, failed or cancelled. */
export class TaskAlreadyFinished extends Error {}

type Entry = {
  record: TaskRecord;
  controller: AbortController;
  ended: Promise<TaskOutcome>;
};

export type TaskStoreOptions = {
  now?: () => number;
  maxTasks?: number;
  maxTtlMs?: number;
};

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed", "cancelled"]);

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.has(status);
}

export class TaskStore {
  #entries = new Map<string, Entry>();
  #forgotten = new Map<string, ForgottenReason>();
  #now: () => number;
  #maxTasks: number;
  #maxTtlMs: number;

  constructor(options: TaskStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxTasks = options.maxTasks ?? MAX_TASKS;
    this.#maxTtlMs = options.maxTtlMs ?? MAX_TTL_MS;
  }

  /**
   * Starts `run` as a new task and returns its record at once. `ttlMs` is the client's request
   * (capped); the run gets a signal that aborts on cancel or on close.
   */
  start(run: (signal: AbortSignal) => Promise<CallToolResult>, ttlMs?: number): TaskRecord {
    this.#sweep();
    if (this.#entries.size >= this.#maxTasks) this.#forgetOldestFinished();
    if (this.#entries.size >= this.#maxTasks) {
      throw new TaskStoreFull(
        `${this.#maxTasks} tasks are still working, the most this server keeps; ` +
          "wait for one to finish or cancel one with tasks/cancel",
      );
    }
    const now = this.#now();
    const record: TaskRecord = {
      taskId: randomHex(16),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: Math.min(Math.max(ttlMs ?? DEFAULT_TTL_MS, 0), this.#maxTtlMs),
    };
    const controller = new AbortController();
    const ended = Promise.resolve()
      .then(() => run(controller.signal))
      .then(
        (result): TaskOutcome => ({ kind: "result", result }),
        (error): TaskOutcome => ({ kind: "error", ...errorOf(error) }),
      )
      .then((outcome) => {
        record.outcome = outcome;
        record.endedAt = this.#now();
        if (record.status === "working") {
          record.status = outcome.kind === "error" ? "failed" : "completed";
          record.lastUpdatedAt = record.endedAt;
        }
        return outcome;
      });
    this.#entries.set(record.taskId, { record, controller, ended });
    return record;
  }

  /** The task, or undefined when it never existed or has expired. */
  get(taskId: string): TaskRecord | undefined {
    this.#sweep();
    return this.#entries.get(taskId)?.record;
  }

  /**
   * Why a task id this store issued is no longer kept, while the id is among the last
   * FORGOTTEN_IDS_REMEMBERED forgotten; undefined for an id it never issued or forgot long ago.
   */
  forgottenReason(taskId: string): ForgottenReason | undefined {
    this.#sweep();
    return this.#forgotten.get(taskId);
  }

  /** The most tasks this store keeps at once. */
  get maxTasks(): number {
    return this.#maxTasks;
  }

  /** Every kept task, oldest first. */
  list(): TaskRecord[] {
    this.#sweep();
    return [...this.#entries.values()].map((entry) => entry.record);
  }

  /** Resolves with the run's outcome once it has ended (at once for a finished task). */
  outcome(taskId: string): Promise<TaskOutcome> | undefined {
    this.#sweep();
    return this.#entries.get(taskId)?.ended;
  }

  /** Marks the task cancelled and aborts its run; a finished task throws TaskAlreadyFinished. */
  cancel(taskId: string): TaskRecord | undefined {
    this.#sweep();
    const entry = this.#entries.get(taskId);
    if (!entry) return undefined;
    const { record } = entry;
    if (isTerminal(record.status)) {
      throw new TaskAlreadyFinished(`the task is already ${record.status}; it cannot be cancelled`);
    }
    record.status = "cancelled";
    record.statusMessage = "cancelled at the client's request";
    record.lastUpdatedAt = this.#now();
    entry.controller.abort();
    return record;
  }

  /** Aborts every run still working and resolves when they have all ended. */
  async close(): Promise<void> {
    const entries = [...this.#entries.values()];
    for (const entry of entries) {
      if (!isTerminal(entry.record.status)) entry.controller.abort();
    }
    await Promise.all(entries.map((entry) => entry.ended));
    this.#entries.clear();
    this.#forgotten.clear();
  }

  #sweep(): void {
    const now = this.#now();
    for (const [taskId, { record }] of this.#entries) {
      if (record.endedAt !== undefined && now >= keptUntil(record, record.endedAt)) {
        this.#forget(taskId, "expired");
      }
    }
  }

  #forgetOldestFinished(): void {
    for (const [taskId, { record }] of this.#entries) {
      if (record.outcome) {
        this.#forget(taskId, "dropped_for_room");
        return;
      }
    }
  }

  #forget(taskId: string, reason: ForgottenReason): void {
    this.#entries.delete(taskId);
    this.#forgotten.set(taskId, reason);
    for (const oldest of this.#forgotten.keys()) {
      if (this.#forgotten.size <= FORGOTTEN_IDS_REMEMBERED) break;
      this.#forgotten.delete(oldest);
    }
  }
}

/** A finished task's last moment: its TTL from creation, and never before KEPT_AFTER_END_MS. */
function keptUntil(record: TaskRecord, endedAt: number): number {
  return Math.max(record.createdAt + record.ttlMs, endedAt + KEPT_AFTER_END_MS);
}

function errorOf(error: unknown): { code: number; message: string } {
  const code = typeof error === "object" && error !== null && "code" in error &&
      typeof error.code === "number"
    ? error.code
    : -32603;
  return { code, message: error instanceof Error ? error.message : "the run failed" };
}
