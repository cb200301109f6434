// What a backend of process facts answers (lib/run/procfs.ts chooses one: /proc on Linux,
// ps and lsof elsewhere). The shapes live apart from the choice so that each backend and the
// chooser depend on them, not on one another.
export type ProcessIdentity = { pid: number; parentPid: number; startTime: string };

/**
 * One row of the process table; `live` is false for a zombie not yet reaped, `stopped` is true
 * for a process stopped by a signal (state T: SIGSTOP, or the terminal's SIGTTIN or SIGTTOU).
 */
export type ProcessRow = {
  pid: number;
  parentPid: number;
  processGroup: number;
  live: boolean;
  stopped: boolean;
};

export type ProcessFacts = {
  name: "proc" | "portable";
  readIdentity(pid: number): Promise<ProcessIdentity | null>;
  holdsFileOpen(pid: number, path: string): Promise<boolean>;
  /** Every process, or null when the table cannot be read. */
  listProcesses(): Promise<ProcessRow[] | null>;
};
