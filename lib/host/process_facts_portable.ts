// Process facts without /proc (macOS, the BSDs), from the kernel through ps(1) and lsof(8): a
// pid's parent, state and start time from `ps -o ppid= -o stat= -o lstart=`, the process table
// from `ps -A -o pid=,ppid=,pgid=,stat=`, and whether it holds a file open from
// `lsof -p PID -a FILE`, which matches the file by device and inode, so a symlinked directory
// (/tmp → /private/tmp) cannot hide it. A terminal's foreground process is its group leader as
// `ps -o tpgid=` and `ps -ww -o args=` show it: ps joins the arguments with spaces, so their
// boundaries are unknown here. The start time has one-second
// resolution: a pid reused within the same second would pass for the same process.
import type {
  ForegroundProcess,
  ProcessFacts,
  ProcessIdentity,
  ProcessRow,
} from "./process_facts.ts";

// Both tools in their system places on macOS (/bin, /usr/sbin) and Debian (/usr/bin), with a
// fixed locale and time zone so that the start time reads the same on every call.
const TOOL_ENVIRONMENT = { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", LC_ALL: "C", TZ: "UTC" };

async function run(command: string, args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const output = await new Deno.Command(command, {
      args,
      env: TOOL_ENVIRONMENT,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return { code: output.code, stdout: new TextDecoder().decode(output.stdout) };
  } catch {
    return { code: -1, stdout: "" };
  }
}

async function readIdentity(pid: number): Promise<ProcessIdentity | null> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  const { code, stdout } = await run("ps", [
    "-o",
    "ppid=",
    "-o",
    "stat=",
    "-o",
    "lstart=",
    "-p",
    String(pid),
  ]);
  const match = /^\s*(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(stdout);
  if (code !== 0 || !match) return null;
  const [, parentPid, state, started] = match;
  if (state.startsWith("Z") || state.startsWith("X")) return null;
  return { pid, parentPid: Number(parentPid), startTime: started };
}

/**
 * lsof about process `pid` only: no host or port names looked up, no warnings, and -a so every
 * further condition in `more` applies to this pid too.
 */
function lsofOf(pid: number, more: string[]) {
  return run("lsof", ["-n", "-P", "-w", "-a", "-p", String(pid), ...more]);
}

async function holdsFileOpen(pid: number, path: string): Promise<boolean> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  // -F p: one "p<pid>" line per match.
  const { code, stdout } = await lsofOf(pid, ["-Fp", "--", path]);
  return code === 0 && stdout.split("\n").includes(`p${pid}`);
}

/** The process table from ps, which reads the same on Linux and macOS and needs no /proc. */
export async function listProcesses(): Promise<ProcessRow[] | null> {
  const { code, stdout } = await run("ps", ["-A", "-o", "pid=,ppid=,pgid=,stat="]);
  if (code !== 0) return null;
  return stdout.split("\n").flatMap((line) => {
    const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
    if (!stat) return [];
    const live = !stat.startsWith("Z") && !stat.startsWith("X");
    return [{ pid: +pid, parentPid: +ppid, processGroup: +pgid, live, stopped: stat[0] === "T" }];
  });
}

/** `ps -o pid=,FIELDS -p PIDS`'s rows: each pid and the rest of its line. */
async function psRows(pids: number[], fields: string): Promise<Map<number, string>> {
  const rows = new Map<number, string>();
  const valid = pids.filter((pid) => Number.isSafeInteger(pid) && pid > 0);
  if (valid.length === 0) return rows;
  // -ww: never cut a line to a terminal's width. ps exits 1 when a pid is gone: rows still count.
  const { stdout } = await run("ps", ["-ww", "-o", `pid=,${fields}`, "-p", valid.join(",")]);
  for (const line of stdout.split("\n")) {
    const match = /^\s*(\d+)\s(.*)$/.exec(line);
    if (match) rows.set(Number(match[1]), match[2].trimStart());
  }
  return rows;
}

async function foregroundProcesses(pids: number[]): Promise<Map<number, ForegroundProcess>> {
  const groups = new Map<number, number>();
  for (const [pid, tpgid] of await psRows(pids, "tpgid=")) {
    const group = Number(tpgid.trim());
    if (Number.isSafeInteger(group) && group > 0) groups.set(pid, group);
  }
  const leaders = await psRows([...new Set(groups.values())], "pgid=,stat=,args=");
  const found = new Map<number, ForegroundProcess>();
  for (const [pid, group] of groups) {
    const match = /^(\d+)\s+(\S+)\s(.*)$/.exec(leaders.get(group) ?? "");
    // The group's leader must still be there, be alive, and lead that group.
    if (!match || Number(match[1]) !== group || /^[ZX]/.test(match[2])) continue;
    const commandLine = match[3].trimStart();
    if (commandLine === "") continue;
    found.set(pid, { pid: group, argv: null, commandLine, cut: false });
  }
  return found;
}

/** `lsof -d cwd`'s name field ("n/path") for the pid. */
async function workingDirectory(pid: number): Promise<string | null> {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  const { code, stdout } = await lsofOf(pid, ["-d", "cwd", "-Fn"]);
  const name = stdout.split("\n").find((line) => line.startsWith("n/"));
  return code === 0 && name ? name.slice(1) : null;
}

export const PORTABLE_FACTS: ProcessFacts = {
  name: "portable",
  readIdentity,
  holdsFileOpen,
  listProcesses,
  foregroundProcesses,
  workingDirectory,
};
