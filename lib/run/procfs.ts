// What the kernel says about a process. Identity checks never trust what a shell or helper says
// about itself: a pid is only "the same process" while its start time is unchanged, and "who
// holds this file open" is read from the kernel's own table of the process's open files. The
// facts come from /proc on Linux (lib/run/process_facts_proc.ts) and from ps and lsof elsewhere
// (lib/run/process_facts_portable.ts); TMUX_MCP_PROCESS_FACTS=portable or =proc forces one.
import { PROC_FACTS } from "./process_facts_proc.ts";
import { PORTABLE_FACTS } from "./process_facts_portable.ts";
import type { ProcessFacts, ProcessIdentity, ProcessRow } from "./process_facts.ts";

export type { ProcessFacts, ProcessIdentity, ProcessRow };

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
