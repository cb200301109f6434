// One tmux_run as its phases read it (lib/run/run_machine.ts and the phase modules it calls):
// what the server lends every run, the run itself, what a completed run answers, and the
// sentences more than one phase says.
import type { Completion } from "./frames.ts";
import type { Receipt } from "./run_outcome.ts";
import type { EncodedOutput } from "./output_encoding.ts";
import type { EnrolledShell, RunSlot, RunSlots } from "./run_slots.ts";
import type { Journal } from "../journal/journal.ts";
import type { ToolPayload } from "../mcp/tool_payload.ts";
import type { TmuxClient } from "../tmux/tmux.ts";

/** Seams for tests that cause real faults (a real respawn, a real kill) at an exact phase. */
export type RunHooks = {
  beforeGuard?: (paneId: string) => Promise<void>;
  afterGuard?: (paneId: string) => Promise<void>;
};

/** What the server lends every run, fixed at startup. */
export type RunServer = {
  readonly tmux: TmuxClient;
  readonly generation: string;
  readonly hooks: Readonly<RunHooks>;
  /**
   * A cancelled request gets no response (MCP), so its outcome is also logged, for clients that
   * listen; every outcome stays readable in RunSlots.recent either way.
   */
  readonly reportCancelled: (payload: ToolPayload) => void;
  /** The person's journal: a line for every run that took its slot, however it ended. */
  readonly journal: Journal;
};

export type Interruption = "deadline" | "cancelled" | "closed";

/** One run, made by tmux_run's gate once its slot is taken; the phases read it, none writes. */
export type Run = {
  readonly server: RunServer;
  readonly slots: RunSlots;
  readonly shell: EnrolledShell;
  readonly slot: RunSlot;
  readonly target: { kind: "pane"; id: string; generation: string };
  readonly script: Uint8Array;
  /** The script's SHA-256, hex: what the helper checks and the receipt names. */
  readonly digest: string;
  readonly limits: { readonly stdout: number; readonly stderr: number };
  /** Aborts on a cancel, the run deadline or shutdown; `interruption` says which. */
  readonly interrupt: AbortSignal;
  readonly interruption: () => Interruption;
  /** The deadline behind `interrupt`'s "deadline", as the error states it. */
  readonly deadlineSeconds: number;
  /** Runs a step that waits, reporting progress with `message` while it does. */
  readonly during: <T>(message: string, step: () => Promise<T>) => Promise<T>;
  /**
   * Told the bytes the script has written so far, when the caller wants progress: while the
   * script runs the helper is asked every second (lib/run/run_execute.ts: it holds the outputs).
   */
  readonly onOutput?: (bytes: OutputSoFar) => void;
};

export type OutputSoFar = { stdout: number; stderr: number };

/** What a run that completed answers (tmux_run's success data). */
export type Completed = {
  target: Run["target"];
  authorization: Receipt;
  completion: Completion;
  stdout: EncodedOutput;
  stderr: EncodedOutput;
};

export const SHELL_GONE =
  "the enrolled shell is gone (it exited or the pane was respawned); a person " +
  "must enroll the pane again";
export const CONTESTED = "another process presented this pane's invitation token on the private " +
  "channel as well as its shell (a race for the enrollment by someone who read the setup file), " +
  "so the enrollment was dropped";
export const CONTESTED_ADVICE = "a person must enroll the pane again, with the setup file in a " +
  "directory only they can read";
