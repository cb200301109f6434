// What one line of the person's journal says, made from what a call already knows: the tool, the
// tmux server and the pane, what was done and how it ended. Typed input (send_keys' keys,
// paste_text's text, run_command's command, set_environment's value, respawn_pane's command) is
// kept as its size and SHA-256 only; a tmux_run script as its receipt's SHA-256 and size, and its
// text only when the person asked (--journal-scripts); outputs never. The shapes are plain data
// so that the journal knows nothing of the tools, and `tmux-mcp journal` reads them back alone.
import { sha256Hex } from "../util/ids.ts";

/** The journal's line format; a reader skips lines of another version. */
export const JOURNAL_VERSION = 1;

/** Where a server's entries come from, fixed at startup. */
export type JournalServer = {
  /** This process's pid. */
  pid: number;
  /** The server's generation (tmux_capabilities' generation). */
  generation: string;
};

/** How a call ended: ok, or the error's code and delivery (never its message or any output). */
export type Outcome =
  | { ok: true }
  | { ok: false; code: string; delivery: string }
  /** The handler threw: a server fault, answered as a protocol error. */
  | { ok: false; code: "server_fault"; delivery: "possibly_sent" };

/** A tmux_run completion as the contract writes it, or none read. */
export type Completion =
  | { state: "exited"; exit_status: number; signal: null }
  | { state: "signaled"; exit_status: null; signal: number }
  | { state: "unobserved" };

export type RunFacts = {
  run_id: string;
  script_sha256: string;
  script_bytes: number;
  /** The shell's working directory as the kernel named it when it answered ready; null unread. */
  cwd: string | null;
  completion: Completion;
  /** The script's text: only with --journal-scripts. */
  script?: string;
};

export type JournalEntry = {
  v: typeof JOURNAL_VERSION;
  /** When the call began, ISO 8601 UTC. */
  time: string;
  server_pid: number;
  server_generation: string;
  tool: string;
  /** The tmux server's socket path. */
  socket: string;
  pane_id: string | null;
  /** The enrolled shell's enrollment_generation, when the pane is enrolled on this server. */
  enrollment_generation: string | null;
  /** The other objects the call named (window, session) and its small arguments. */
  arguments?: Record<string, string | number | boolean>;
  /** Typed or sent text, as its size and digest. */
  input?: { field: string; bytes: number; sha256: string };
  /** tmux_run only. */
  run?: RunFacts;
  /** Ids a successful call reports (a new pane, window or session; run_command's end). */
  result?: Record<string, string | number | boolean | null>;
  outcome: Outcome;
  duration_ms: number;
};

/** The arguments whose value is text sent to a program: kept as size and SHA-256 only. */
const CONTENT_FIELDS = ["keys", "text", "command", "value"];

/** Arguments that name where the call acted, kept as they are. */
const SCALAR_LIMIT = 256;

/** The fields of a success's data worth keeping: new ids and how a command ended. */
const RESULT_FIELDS = [
  "pane_id",
  "window_id",
  "session_id",
  "target",
  "exit_status",
  "timed_out",
  "command_id",
];

export type CallFacts = {
  server: JournalServer;
  tool: string;
  socket: string;
  started: Date;
  durationMs: number;
  args: Record<string, unknown>;
  /** The pane's enrolled shell's generation, when it is one on this server. */
  enrollmentGeneration: string | null;
  /** The tool's payload, or null when its handler threw. */
  payload: { ok: boolean; data?: unknown; error?: { code: string; delivery: string } } | null;
};

/** The entry for a call of a general tool that acts (every tool that is not read-only). */
export async function callEntry(facts: CallFacts): Promise<JournalEntry> {
  const { args, payload } = facts;
  const kept: Record<string, string | number | boolean> = {};
  let input: JournalEntry["input"];
  for (const [name, value] of Object.entries(args)) {
    if (name === "pane_id" || name === "socket_name") continue;
    if (CONTENT_FIELDS.includes(name) && typeof value === "string") {
      const bytes = new TextEncoder().encode(value);
      input = { field: name, bytes: bytes.length, sha256: await sha256Hex(bytes) };
    } else if (typeof value === "number" || typeof value === "boolean") {
      kept[name] = value;
    } else if (typeof value === "string") {
      kept[name] = value.length > SCALAR_LIMIT ? `${value.slice(0, SCALAR_LIMIT)}…` : value;
    }
  }
  const entry: JournalEntry = {
    ...head(facts.server, facts.tool, facts.socket, facts.started),
    pane_id: typeof args.pane_id === "string" ? args.pane_id : null,
    enrollment_generation: facts.enrollmentGeneration,
    ...(Object.keys(kept).length > 0 && { arguments: kept }),
    ...(input && { input }),
    outcome: outcomeOf(payload),
    duration_ms: Math.round(facts.durationMs),
  };
  const result = payload?.ok ? resultOf(payload.data) : null;
  if (result) entry.result = result;
  return entry;
}

export type RunEntryFacts = {
  server: JournalServer;
  socket: string;
  paneId: string;
  enrollmentGeneration: string;
  started: Date;
  durationMs: number;
  run: RunFacts;
  outcome: Outcome;
};

/** The entry for a tmux_run that took its slot (it passed the gate), however it ended. */
export function runEntry(facts: RunEntryFacts): JournalEntry {
  return {
    ...head(facts.server, "tmux_run", facts.socket, facts.started),
    pane_id: facts.paneId,
    enrollment_generation: facts.enrollmentGeneration,
    run: facts.run,
    outcome: facts.outcome,
    duration_ms: Math.round(facts.durationMs),
  };
}

function head(server: JournalServer, tool: string, socket: string, started: Date) {
  return {
    v: JOURNAL_VERSION as typeof JOURNAL_VERSION,
    time: started.toISOString(),
    server_pid: server.pid,
    server_generation: server.generation,
    tool,
    socket,
  };
}

function outcomeOf(payload: CallFacts["payload"]): Outcome {
  if (payload === null) return { ok: false, code: "server_fault", delivery: "possibly_sent" };
  if (payload.ok) return { ok: true };
  return {
    ok: false,
    code: payload.error?.code ?? "unknown",
    delivery: payload.error?.delivery ?? "possibly_sent",
  };
}

function resultOf(data: unknown): JournalEntry["result"] | null {
  if (typeof data !== "object" || data === null) return null;
  const result: NonNullable<JournalEntry["result"]> = {};
  for (const name of RESULT_FIELDS) {
    const value = (data as Record<string, unknown>)[name];
    if (
      value === null || typeof value === "number" || typeof value === "boolean" ||
      (typeof value === "string" && value.length <= SCALAR_LIMIT)
    ) result[name] = value;
  }
  return Object.keys(result).length > 0 ? result : null;
}
