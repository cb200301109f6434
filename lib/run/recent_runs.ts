// What became of the last runs, kept in memory so an agent can read back an outcome its call
// never delivered: a cancelled request gets no response (MCP), and a client may stop waiting
// before the run deadline. A log notification reaches only clients that listen, so the outcome
// is kept here too and tmux_capabilities lists it. Only facts about a run are kept (its id,
// pane, the script's SHA-256 and size, when it started, how it ended), never the script or its
// output; the oldest entry leaves once more than `capacity` runs are kept.
import type { Completion } from "./frames.ts";
import { RunFailure } from "./run_outcome.ts";
import type { Delivery } from "../mcp/tool_payload.ts";

/** How many runs tmux_capabilities lists (the spec asks for at least the last 16). */
export const RECENT_RUNS_KEPT = 16;

export type RecentRun = {
  /** The run's id: the receipt's run_id when the run reached the commit point. */
  run_id: string;
  pane_id: string;
  script_sha256: string;
  script_bytes: number;
  /** When the run took its slot, ISO 8601 in UTC. */
  started_at: string;
  /** `unknown`: the run ended with an error outside tmux_run's vocabulary (a server fault). */
  outcome: "running" | "completed" | "failed" | "unknown";
  completion: Completion | { state: "unobserved" };
  /** The error the call answered (or would have, had it not been cancelled). */
  error?: { code: string; message: string; delivery: Delivery };
};

export type RunStart = {
  runId: string;
  paneId: string;
  scriptSha256: string;
  scriptBytes: number;
  startedAt: Date;
};

/** How a run that `begin` recorded is settled, once: by its completion or by what it threw. */
export type RunSettler = {
  completed: (completion: Completion) => void;
  failed: (error: unknown) => void;
};

export class RecentRuns {
  /** Newest first. */
  #entries: RecentRun[] = [];

  constructor(readonly capacity = RECENT_RUNS_KEPT) {}

  /** Records a run as running, newest first, and hands back how to settle it. */
  begin(start: RunStart): RunSettler {
    const entry: RecentRun = {
      run_id: start.runId,
      pane_id: start.paneId,
      script_sha256: start.scriptSha256,
      script_bytes: start.scriptBytes,
      started_at: start.startedAt.toISOString(),
      outcome: "running",
      completion: { state: "unobserved" },
    };
    this.#entries.unshift(entry);
    this.#entries.length = Math.min(this.#entries.length, this.capacity);
    return {
      completed: (completion) => {
        entry.outcome = "completed";
        entry.completion = completion;
      },
      failed: (error) => {
        if (!(error instanceof RunFailure)) {
          entry.outcome = "unknown";
          return;
        }
        entry.outcome = "failed";
        entry.completion = error.completion ?? { state: "unobserved" };
        entry.error = { code: error.code, message: error.message, delivery: error.delivery };
      },
    };
  }

  /** The runs kept, newest first, as copies. */
  list(): RecentRun[] {
    return this.#entries.map((entry) => ({ ...entry }));
  }
}
