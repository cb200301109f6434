// What the kernel says about a process. Identity checks never trust what a shell or helper says
// about itself: a pid is only "the same process" while its start time is unchanged, and "who
// holds this file open" is read from the kernel's own table of the process's open files. The
// facts come from /proc on Linux (lib/host/process_facts_proc.ts) and from ps and lsof elsewhere
// (lib/host/process_facts_portable.ts); TMUX_MCP_PROCESS_FACTS=portable or =proc forces one.
import { PROC_FACTS } from "./process_facts_proc.ts";
import { PORTABLE_FACTS } from "./process_facts_portable.ts";
import type {
  ForegroundProcess,
  ProcessFacts,
  ProcessIdentity,
  ProcessRow,
} from "./process_facts.ts";

export type { ForegroundProcess, ProcessFacts, ProcessIdentity, ProcessRow };

/** TMUX_MCP_PROCESS_FACTS, where this process may read it (one run without --allow-env may not). */
function forcedBackend(): string | undefined {
  try {
    return Deno.env.get("TMUX_MCP_PROCESS_FACTS");
  } catch {
    return undefined;
  }
}

/** The backend for this machine, or the one TMUX_MCP_PROCESS_FACTS names. */
export function chooseProcessFacts(forced: string | undefined, os: string): ProcessFacts {
  if (forced === "portable") return PORTABLE_FACTS;
  if (forced === "proc") return PROC_FACTS;
  return os === "linux" ? PROC_FACTS : PORTABLE_FACTS;
}

const facts = chooseProcessFacts(forcedBackend(), Deno.build.os);

/** Which backend this process reads facts with: start times are only comparable within one. */
export const PROCESS_FACTS_NAME: ProcessFacts["name"] = facts.name;

export function readIdentity(pid: number): Promise<ProcessIdentity | null> {
  return facts.readIdentity(pid);
}

export async function isSameProcess(identity: ProcessIdentity): Promise<boolean> {
  const now = await readIdentity(identity.pid);
  return now !== null && now.startTime === identity.startTime;
}

export function holdsFileOpen(pid: number, path: string): Promise<boolean> {
  return facts.holdsFileOpen(pid, path);
}

/** Whether `pid` is a live process (not gone, not a zombie). */
export async function processExists(pid: number): Promise<boolean> {
  return await readIdentity(pid) !== null;
}

/** `pid`'s working directory as the kernel names it (symlinks resolved); null when unread. */
export function workingDirectory(pid: number): Promise<string | null> {
  return facts.workingDirectory(pid);
}

export function listProcesses(): Promise<ProcessRow[] | null> {
  return facts.listProcesses();
}

/** Live children of `parentPid`. */
export async function childrenOf(parentPid: number): Promise<number[]> {
  const rows = await listProcesses() ?? [];
  return rows.filter((row) => row.live && row.parentPid === parentPid).map((row) => row.pid);
}

/** Live members of process group `processGroup`. */
export async function groupMembers(processGroup: number): Promise<number[]> {
  const rows = await listProcesses() ?? [];
  return rows.filter((row) => row.live && row.processGroup === processGroup).map((row) => row.pid);
}

/** The most arguments, and characters of a command line, a foreground command reports. */
export const FOREGROUND_MAX_ARGS = 32;
export const FOREGROUND_MAX_CHARS = 1024;

/**
 * A terminal's foreground process as the tools report it: its pid, its arguments (null when the
 * backend cannot tell them apart) and its command line, within FOREGROUND_MAX_ARGS arguments
 * and FOREGROUND_MAX_CHARS characters, the start kept; `truncated` says something was cut.
 */
export type ForegroundCommand = {
  pid: number;
  argv: string[] | null;
  command_line: string;
  truncated: boolean;
};

/** `text`'s first `max` UTF-16 units, never ending inside a surrogate pair. */
function cutText(text: string, max: number): string {
  if (max <= 0) return "";
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A backend's foreground process within the reported bounds. */
export function boundForeground(process: ForegroundProcess): ForegroundCommand {
  let truncated = process.cut;
  let argv: string[] | null = null;
  if (process.argv !== null) {
    argv = [];
    let room = FOREGROUND_MAX_CHARS;
    for (const arg of process.argv.slice(0, FOREGROUND_MAX_ARGS)) {
      // Each argument after the first costs its separating space as well.
      const separator = argv.length > 0 ? 1 : 0;
      if (arg.length + separator > room) {
        const start = cutText(arg, room - separator);
        if (start !== "") argv.push(start);
        truncated = true;
        break;
      }
      argv.push(arg);
      room -= arg.length + separator;
    }
    if (process.argv.length > FOREGROUND_MAX_ARGS) truncated = true;
  }
  const line = argv === null ? process.commandLine : argv.join(" ");
  const commandLine = cutText(line, FOREGROUND_MAX_CHARS);
  if (commandLine.length < line.length) truncated = true;
  return { pid: process.pid, argv, command_line: commandLine, truncated };
}

/**
 * For each of `pids` (panes' processes), the foreground process of its terminal, read from the
 * kernel (never from what the terminal shows), bounded; absent when it cannot be read.
 */
export async function foregroundCommands(pids: number[]): Promise<Map<number, ForegroundCommand>> {
  const found = new Map<number, ForegroundCommand>();
  for (const [pid, process] of await facts.foregroundProcesses(pids)) {
    found.set(pid, boundForeground(process));
  }
  return found;
}
