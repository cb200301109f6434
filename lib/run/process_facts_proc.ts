// Process facts from Linux's /proc: a pid's parent and start time (in clock ticks since boot)
// from /proc/PID/stat, its open files from the /proc/PID/fd links, its umask from
// /proc/PID/status. Reading files costs no process start, so this is the backend on Linux.
import type { ProcessFacts, ProcessIdentity } from "./procfs.ts";

async function readIdentity(pid: number): Promise<ProcessIdentity | null> {
  let stat: string;
  try {
    stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  // The command name is parenthesised and may contain spaces or parentheses itself.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const state = fields[0];
  if (state === "Z" || state === "X") return null;
  return { pid, parentPid: Number(fields[1]), startTime: fields[19] };
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

export const PROC_FACTS: ProcessFacts = { name: "proc", readIdentity, holdsFileOpen };
