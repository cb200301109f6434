// What a backend of process facts answers (lib/host/processes.ts chooses one: /proc on Linux,
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

/**
 * The foreground process of a pid's controlling terminal (its foreground process group's
 * leader) as a backend reads it, before processes.ts bounds it.
 */
export type ForegroundProcess = {
  pid: number;
  /** Its exact arguments; null when the backend cannot tell where one ends (ps joins them). */
  argv: string[] | null;
  /** Its command line as one string: argv joined by spaces, or as ps prints it. */
  commandLine: string;
  /** The backend read only the start of the arguments. */
  cut: boolean;
};

export type ProcessFacts = {
  name: "proc" | "portable";
  readIdentity(pid: number): Promise<ProcessIdentity | null>;
  holdsFileOpen(pid: number, path: string): Promise<boolean>;
  /** Every process, or null when the table cannot be read. */
  listProcesses(): Promise<ProcessRow[] | null>;
  /**
   * For each of `pids`, the foreground process of its controlling terminal. A pid is absent
   * when that cannot be read: it is gone, has no terminal, or its group's leader has exited.
   */
  foregroundProcesses(pids: number[]): Promise<Map<number, ForegroundProcess>>;
  /** A process's working directory as the kernel names it; null when it cannot be read. */
  workingDirectory(pid: number): Promise<string | null>;
};
