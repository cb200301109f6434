// Stopping a script's job the way Ctrl-C stops a terminal's foreground job, when the server has
// to do it itself (the helper, which stops its scripts the same way in lib/run/helper.pl, is gone
// or did not answer). Each script's `sh` leads its own process group in the shell's session, so
// one signal reaches every process the script started and did not move elsewhere. What remains
// afterwards is looked up, never assumed: the process table (lib/run/procfs.ts: /proc on Linux,
// `ps` elsewhere) says who is still in the group, and which descendants had left it (`setsid`, a
// double fork) before the stop.
import { listProcesses, type ProcessRow } from "./procfs.ts";
import { pollUntil } from "../delay.ts";

/** Between SIGTERM and SIGKILL, and again for SIGKILL to take effect. */
const KILL_GRACE_MS = 500;
const POLL_MS = 25;

/** What a stop confirmed: live members of the group left, and live escapees it cannot reach. */
export type StopReport = { remaining: number | null; left_group: number };

/** Live processes below `leader` (following parent links) that are not in its group. */
function descendantsOutside(rows: ProcessRow[], leader: number): Set<number> {
  const children = new Map<number, ProcessRow[]>();
  for (const row of rows) children.set(row.parentPid, [...children.get(row.parentPid) ?? [], row]);
  const outside = new Set<number>();
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (child.processGroup !== leader && child.live) outside.add(child.pid);
      walk(child.pid);
    }
  };
  walk(leader);
  return outside;
}

function liveMembers(rows: ProcessRow[], pgid: number): number {
  return rows.filter((row) => row.processGroup === pgid && row.live).length;
}

/** Sends `signal` to every member of group `pgid`; false when the group has no member. */
function signalGroup(pgid: number, signal: Deno.Signal): boolean {
  try {
    Deno.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Counts the group's live members, or null when the process table cannot be read. */
async function liveMemberCount(pgid: number): Promise<number | null> {
  const rows = await listProcesses();
  return rows ? liveMembers(rows, pgid) : null;
}

async function waitForEmptyGroup(pgid: number, limitMs: number): Promise<boolean> {
  return await pollUntil(async () => await liveMemberCount(pgid) === 0, limitMs, POLL_MS) ?? false;
}

/**
 * SIGTERM to the whole group (with SIGCONT, so a stopped member can act on it), SIGKILL to what
 * is left after the grace, then a look at what remains.
 */
export async function stopGroup(pgid: number): Promise<StopReport> {
  const before = await listProcesses();
  const escapees = before ? descendantsOutside(before, pgid) : new Set<number>();
  if (signalGroup(pgid, "SIGTERM")) {
    signalGroup(pgid, "SIGCONT");
    if (!await waitForEmptyGroup(pgid, KILL_GRACE_MS)) {
      signalGroup(pgid, "SIGKILL");
      await waitForEmptyGroup(pgid, KILL_GRACE_MS);
    }
  }
  const after = await listProcesses();
  if (!after) return { remaining: null, left_group: escapees.size };
  const alive = new Set(after.filter((row) => row.live).map((row) => row.pid));
  return {
    remaining: liveMembers(after, pgid),
    left_group: [...escapees].filter((pid) => alive.has(pid)).length,
  };
}

/** The honest sentence for a stop: what was seen, and what could not be reached. */
export function describeStop(report: StopReport | null): string {
  if (!report) return "whether the script's processes were stopped is unknown";
  const group = report.remaining === null
    ? "signalled with SIGTERM then SIGKILL; the process table could not be read to confirm"
    : report.remaining === 0
    ? "stopped: no process of the script's group remains"
    : `not stopped: ${report.remaining} process(es) of the script's group remain after SIGKILL`;
  const escaped = report.left_group > 0
    ? `; ${report.left_group} process(es) that left the script's group (setsid or double fork) ` +
      "may still run"
    : "";
  return group + escaped;
}
