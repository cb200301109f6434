// Process facts from Linux's /proc: a pid's parent, group and start time (in clock ticks since
// boot) from /proc/PID/stat, the process table from every /proc/PID/stat, its open files from
// the /proc/PID/fd links. Reading files costs no process start, so this is the backend on Linux.
import type { ProcessFacts, ProcessIdentity, ProcessRow } from "./procfs.ts";

/** The fields of /proc/PID/stat after the command name, from the state on; null when gone. */
async function statFields(pid: number | string): Promise<string[] | null> {
  try {
    const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
    // The command name is parenthesised and may contain spaces or parentheses itself.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

const isLive = (state: string) => state !== "Z" && state !== "X";

async function readIdentity(pid: number): Promise<ProcessIdentity | null> {
  const fields = await statFields(pid);
  if (fields === null || !isLive(fields[0])) return null;
  return { pid, parentPid: Number(fields[1]), startTime: fields[19] };
}

async function listProcesses(): Promise<ProcessRow[] | null> {
  const rows: ProcessRow[] = [];
  try {
    for await (const entry of Deno.readDir("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const fields = await statFields(entry.name);
      // null: it exited while we looked.
      if (fields === null) continue;
      rows.push({
        pid: Number(entry.name),
        parentPid: Number(fields[1]),
        processGroup: Number(fields[2]),
        live: isLive(fields[0]),
      });
    }
  } catch {
    return null;
  }
  return rows;
}

async function holdsFileOpen(pid: number, path: string): Promise<boolean> {
  try {
    for await (const entry of Deno.readDir(`/proc/${pid}/fd`)) {
      try {
        if (await Deno.readLink(`/proc/${pid}/fd/${entry.name}`) === path) return true;
      } catch {
        // An fd closed while we were listing: not the one we look for.
      }
    }
  } catch {
    return false;
  }
  return false;
}

export const PROC_FACTS: ProcessFacts = {
  name: "proc",
  readIdentity,
  holdsFileOpen,
  listProcesses,
};
