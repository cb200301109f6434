// What the kernel says about a process, read from /proc. Identity checks never trust what a
// shell or helper says about itself: a pid is only "the same process" while its start time
// (in clock ticks since boot) is unchanged, and "who holds this file open" is read from the
// process's own fd table.
export type ProcessIdentity = { pid: number; parentPid: number; startTime: string };

export async function readIdentity(pid: number): Promise<ProcessIdentity | null> {
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

export async function isSameProcess(identity: ProcessIdentity): Promise<boolean> {
  const now = await readIdentity(identity.pid);
  return now !== null && now.startTime === identity.startTime;
}

export async function holdsFileOpen(pid: number, path: string): Promise<boolean> {
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

export async function readUmask(pid: number): Promise<number | null> {
  try {
    const status = await Deno.readTextFile(`/proc/${pid}/status`);
    const line = status.split("\n").find((l) => l.startsWith("Umask:"));
    return line ? parseInt(line.slice(6).trim(), 8) : null;
  } catch {
    return null;
  }
}
