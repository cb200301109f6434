// Stopping a script's job the way Ctrl-C stops a terminal's foreground job, when the server has
// to do it itself (the helper, which stops its scripts the same way in lib/run/helper.pl, is gone
// or did not answer). Each script's `sh` leads its own process group in the shell's session, so
// one signal reaches every process the script started and did not move elsewhere. A descendant
// that moved elsewhere (`setsid`, a double fork) is found by its parent links and stopped too: on
// Linux the helper makes `sh` a child subreaper, so even an orphaned descendant stays below it
// while it lives; elsewhere an orphan goes to init and cannot be told from anyone else's, and the
// report says so. What remains afterwards is looked up, never assumed: the process table
// (lib/host/processes.ts: /proc on Linux, `ps` elsewhere).
import { listProcesses, type ProcessRow } from "../host/processes.ts";
import { pollUntil } from "../util/delay.ts";

/** Between SIGTERM and SIGKILL, and again for SIGKILL to take effect. */
const KILL_GRACE_MS = 500;
const POLL_MS = 25;
/** The terminal's job-control stops; the same numbers on Linux, macOS and the BSDs. */
const SIGTTIN = 21;
const SIGTTOU = 22;

/** What a stop confirmed; the helper sends the same shape (lib/run/frames.ts). */
export type StopReport = {
  /** Live members of the script's group after the stop; null when the table was unreadable. */
  remaining: number | null;
  /** Descendants found outside the group (setsid, a double fork), signalled with the group. */
  escapees: number;
  /** How many of those still lived after the stop; null when the table was unreadable. */
  escapees_left: number | null;
  /** Whether an orphaned descendant could have been found (`sh` adopted orphans and lived). */
  orphans_traced: boolean;
  /** Members of the group that were stopped (state T) before the stop began. */
  halted: number;
  /** The signal that had stopped `sh` itself, as its parent's wait read it; null if none. */
  halt_signal: number | null;
};

/** Adds to `escapees` every live process outside the group below its leader or a known escapee. */
function findEscapees(rows: ProcessRow[], leader: number, escapees: Set<number>): void {
  const children = new Map<number, ProcessRow[]>();
  for (const row of rows) children.set(row.parentPid, [...children.get(row.parentPid) ?? [], row]);
  const seen = new Set<number>();
  const walk = (pid: number) => {
    if (seen.has(pid)) return;
    seen.add(pid);
    for (const child of children.get(pid) ?? []) {
      if (child.processGroup !== leader && child.live) escapees.add(child.pid);
      walk(child.pid);
    }
  };
  for (const pid of [leader, ...escapees]) walk(pid);
}

function liveMembers(rows: ProcessRow[], pgid: number): number {
  return rows.filter((row) => row.processGroup === pgid && row.live).length;
}

function liveEscapees(rows: ProcessRow[], escapees: Set<number>): number {
  return rows.filter((row) => row.live && escapees.has(row.pid)).length;
}

/** Sends `signal` to every member of group `pgid` and to each escapee; a gone one is skipped. */
function signalAll(pgid: number, escapees: Set<number>, signal: Deno.Signal): void {
  for (const target of [-pgid, ...escapees]) {
    try {
      Deno.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * SIGTERM to the whole group and to its escapees (with SIGCONT, so a stopped one can act on
 * it), SIGKILL to what is left after the grace, then a look at what remains. `adopts`: the
 * helper said `sh` adopts orphaned descendants.
 */
export async function stopGroup(pgid: number, adopts: boolean): Promise<StopReport> {
  const before = await listProcesses();
  const escapees = new Set<number>();
  let halted = 0;
  let orphansTraced = false;
  if (before) {
    findEscapees(before, pgid, escapees);
    halted = before.filter((row) => row.processGroup === pgid && row.live && row.stopped).length;
    // Orphans come to `sh` only while it lives; once it exited they went to init, unseen.
    orphansTraced = adopts && before.some((row) => row.pid === pgid && row.live);
  }
  const allGone = async () => {
    const rows = await listProcesses();
    if (!rows) return false;
    findEscapees(rows, pgid, escapees);
    return liveMembers(rows, pgid) === 0 && liveEscapees(rows, escapees) === 0;
  };
  signalAll(pgid, escapees, "SIGTERM");
  signalAll(pgid, escapees, "SIGCONT");
  if (!await pollUntil(allGone, KILL_GRACE_MS, POLL_MS)) {
    signalAll(pgid, escapees, "SIGKILL");
    await pollUntil(allGone, KILL_GRACE_MS, POLL_MS);
  }
  const after = await listProcesses();
  return {
    remaining: after ? liveMembers(after, pgid) : null,
    escapees: escapees.size,
    escapees_left: after ? liveEscapees(after, escapees) : null,
    orphans_traced: orphansTraced,
    halted,
    halt_signal: null,
  };
}

/** The honest sentence for a stop: what was seen, and what could not be seen. */
export function describeStop(report: StopReport | null): string {
  if (!report) return "whether the script's processes were stopped is unknown";
  const group = report.remaining === null
    ? "signalled with SIGTERM then SIGKILL; the process table could not be read to confirm"
    : report.remaining === 0
    ? "stopped: no process of the script's group remains"
    : `not stopped: ${report.remaining} process(es) of the script's group remain after SIGKILL`;
  const left = report.escapees === 0
    ? ""
    : report.escapees_left === null
    ? `; ${report.escapees} process(es) that had left the group (setsid or double fork) were ` +
      "signalled too, unconfirmed"
    : report.escapees_left === 0
    ? `; ${report.escapees} process(es) that had left the group (setsid or double fork) were ` +
      "stopped too"
    : `; ${report.escapees_left} of ${report.escapees} process(es) that had left the group ` +
      "(setsid or double fork) remain after SIGKILL";
  const unseen = report.orphans_traced
    ? ""
    : "; a process that left the group and lost its parent (a double fork) cannot be found " +
      "here, so any such process was not counted and may still run";
  return group + left + unseen;
}

/**
 * What had stopped the script before the stop, when something had: the terminal stops the whole
 * group of a background process that reads from it (SIGTTIN) or changes its settings (SIGTTOU),
 * and a script always runs in the pane's background. Null when nothing was stopped.
 */
export function describeHalt(report: StopReport | null): string | null {
  if (!report) return null;
  if (report.halt_signal === SIGTTIN) {
    return "waiting on the terminal: its group was stopped by SIGTTIN, which the terminal sends " +
      "when a process of it reads from the terminal";
  }
  if (report.halt_signal === SIGTTOU) {
    return "waiting on the terminal: its group was stopped by SIGTTOU, which the terminal " +
      "sends when a process of it writes to the terminal or changes its settings";
  }
  if (report.halt_signal !== null) {
    return `stopped, not running: sh was stopped by signal ${report.halt_signal}`;
  }
  if (report.halted > 0) {
    return `stopped, not running: ${report.halted} process(es) of its group were stopped ` +
      "(state T; the terminal stops a script that reads from it, SIGTTIN, or changes its " +
      "settings, SIGTTOU)";
  }
  return null;
}
