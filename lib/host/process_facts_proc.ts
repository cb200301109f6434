// Process facts from Linux's /proc: a pid's parent, group and start time (in clock ticks since
// boot) from /proc/PID/stat, the process table from every /proc/PID/stat, its open files from
// the /proc/PID/fd links, a terminal's foreground process from the tpgid field of
// /proc/PID/stat and that group leader's /proc/PGID/cmdline. Reading files costs no process start, so this is the backend on Linux.
// The reads are synchronous: /proc answers from the kernel's memory and never waits, and Deno's
// asynchronous file calls cost ~70 µs each in a hop to a worker thread against ~5 µs here
// (500 reads of a small file), which a tmux_run paid four times on its way to the script.
import type {
  ForegroundProcess,
  ProcessFacts,
  ProcessIdentity,
  ProcessRow,
} from "./process_facts.ts";

/** The fields of /proc/PID/stat after the command name, from the state on; null when gone. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // The command name is parenthesised and may contain spaces or parentheses itself.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

const isLive = (state: string) => state !== "Z" && state !== "X";

function readIdentity(pid: number): Promise<ProcessIdentity | null> {
  const fields = statFields(pid);
  if (fields === null || !isLive(fields[0])) return Promise.resolve(null);
  return Promise.resolve({ pid, parentPid: Number(fields[1]), startTime: fields[19] });
}

function listProcesses(): Promise<ProcessRow[] | null> {
  const rows: ProcessRow[] = [];
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      const fields = statFields(entry.name);
      // null: it exited while we looked.
      if (fields === null) continue;
      rows.push({
        pid: Number(entry.name),
        parentPid: Number(fields[1]),
        processGroup: Number(fields[2]),
        live: isLive(fields[0]),
        stopped: fields[0] === "T",
      });
    }
  } catch {
    return Promise.resolve(null);
  }
  return Promise.resolve(rows);
}

function holdsFileOpen(pid: number, path: string): Promise<boolean> {
  try {
    for (const entry of Deno.readDirSync(`/proc/${pid}/fd`)) {
      try {
        if (Deno.readLinkSync(`/proc/${pid}/fd/${entry.name}`) === path) {
          return Promise.resolve(true);
        }
      } catch {
        // An fd closed while we were listing: not the one we look for.
      }
    }
  } catch {
    return Promise.resolve(false);
  }
  return Promise.resolve(false);
}

/** The most of a command line read: far past what processes.ts reports, well short of ARG_MAX. */
const CMDLINE_READ_BYTES = 64 * 1024;

/** The first `max` bytes of a file (or all of it), and whether there was more; null when gone. */
function readHead(path: string, max: number): { bytes: Uint8Array; more: boolean } | null {
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(path);
    const buffer = new Uint8Array(max + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const read = file.readSync(buffer.subarray(filled));
      if (read === null || read === 0) break;
      filled += read;
    }
    return { bytes: buffer.subarray(0, Math.min(filled, max)), more: filled > max };
  } catch {
    return null;
  } finally {
    file?.close();
  }
}

const lenient = new TextDecoder();

/** `pid`'s terminal's foreground group leader and its NUL-separated arguments. */
function foregroundOf(pid: number): ForegroundProcess | null {
  const fields = statFields(pid);
  // Field 5 after the state is tpgid: -1 when the process has no controlling terminal.
  const group = fields === null ? NaN : Number(fields[5]);
  if (!Number.isSafeInteger(group) || group <= 0) return null;
  const leader = statFields(group);
  // The group's leader must still be there, be alive, and lead that group.
  if (leader === null || !isLive(leader[0]) || Number(leader[2]) !== group) return null;
  const head = readHead(`/proc/${group}/cmdline`, CMDLINE_READ_BYTES);
  if (head === null || head.bytes.length === 0) return null;
  const text = lenient.decode(head.bytes);
  const argv = (text.endsWith("\0") ? text.slice(0, -1) : text).split("\0");
  return { pid: group, argv, commandLine: argv.join(" "), cut: head.more };
}

function foregroundProcesses(pids: number[]): Promise<Map<number, ForegroundProcess>> {
  const found = new Map<number, ForegroundProcess>();
  for (const pid of pids) {
    const process = Number.isSafeInteger(pid) && pid > 0 ? foregroundOf(pid) : null;
    if (process !== null) found.set(pid, process);
  }
  return Promise.resolve(found);
}

function workingDirectory(pid: number): Promise<string | null> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return Promise.resolve(null);
  try {
    return Promise.resolve(Deno.readLinkSync(`/proc/${pid}/cwd`));
  } catch {
    return Promise.resolve(null);
  }
}

export const PROC_FACTS: ProcessFacts = {
  name: "proc",
  readIdentity,
  holdsFileOpen,
  listProcesses,
  foregroundProcesses,
  workingDirectory,
};
