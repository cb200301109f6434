// How a general tool reaches tmux for one call: which server (the bound socket, or the call's
// own socket_name), which object (an exact id or an exact session name, never tmux's fuzzy
// matching or a "current pane" fallback), and how a tmux failure becomes a refusal: a fixed one
// for a missing server or object, else tmux's own reason, one bounded line that never repeats
// what the command was given (paths, names, an agent's text) but the ids.
import {
  runTmux,
  serverLabel,
  TMUX_ANSWER_SECONDS,
  type TmuxClient,
  TmuxNotAnswering,
} from "./tmux.ts";
import { controlCall, controlReads, serverAnswered } from "./control_servers.ts";
import { refusal, type ToolPayload } from "../mcp/tool_result.ts";
import { type TempDirectoryError, whatIsWrong, whatToDo } from "../host/directory_problems.ts";

export type SessionArgs = { session_id?: string; session_name?: string };

export type Refusal = Extract<ToolPayload, { ok: false }>;

export type TmuxOutcome<T> = { ok: true; value: T } | { ok: false; payload: Refusal };

export const NO_SERVER = refusal(
  "no_server",
  "no tmux server is running on that socket; create_session starts one",
);
export const NOT_FOUND = refusal(
  "not_found",
  "the target does not exist on that tmux server; list it again with list_sessions or list_panes",
);

/** How to find a live id again, by the kind of target that was missing. */
const LIST_AGAIN: Record<string, string> = {
  "%": "list_panes",
  "@": "list_windows",
  "$": "list_sessions",
};

/**
 * not_found for one exact target: an id (`%3`, `@2`, `$1`) or a session name. Both are the
 * caller's own handles for tmux objects, so naming them tells the agent which one to look up.
 */
export function notFound(target: string): Refusal {
  const name = target.replace(/^=/, "").replace(/:$/, "");
  const lister = LIST_AGAIN[name[0]];
  const what = lister
    ? { "%": "pane", "@": "window", "$": "session" }[name[0]] + ` ${name}`
    : `session named ${JSON.stringify(name)}`;
  return refusal(
    "not_found",
    `${what} does not exist on that tmux server; get current ids with ${lister ?? "list_sessions"}`,
  );
}

function naming(outcome: TmuxOutcome<never>, target: string): TmuxOutcome<never> {
  if (!outcome.ok && outcome.payload.error.code === "not_found") {
    return { ok: false, payload: notFound(target) };
  }
  return outcome;
}
export const TMUX_FAILED = refusal("tmux_failed", "tmux refused the command");
export const TMUX_UNAVAILABLE = refusal(
  "tmux_unavailable",
  "the tmux executable could not be started",
);
export const UNSAFE_FORMAT = refusal(
  "unsafe_format",
  "formats that run shell commands or expand option values (#(, E:, T:) are refused here",
);
export const NEED_ONE_SESSION = refusal(
  "invalid_input",
  "name the session by exactly one of session_id or session_name",
);

export const NOT_ANSWERING = "tmux_not_answering";

/**
 * A tmux command was abandoned because its server gave no answer in time. The server may be
 * stopped, so what was sent may still take effect when it resumes: possibly_sent.
 */
export function notAnswering(client: TmuxClient): Refusal {
  return {
    ok: false,
    error: {
      code: NOT_ANSWERING,
      message: `${serverLabel(client)} did not answer within its time (${TMUX_ANSWER_SECONDS} s ` +
        "for a command, or the call's timeout); the command was abandoned and may still take " +
        "effect if that server resumes. It may be stopped (SIGSTOP, a debugger) or overloaded: " +
        "check it with tmux list-sessions, then call again",
      delivery: "possibly_sent",
    },
  };
}

/** True when an outcome failed because its tmux server did not answer. */
export function isNotAnswering(outcome: TmuxOutcome<unknown>): boolean {
  return !outcome.ok && outcome.payload.error.code === NOT_ANSWERING;
}

/** The refusal for a capture or paste whose file could not be made, written or read. */
export function tempRefusal(error: TempDirectoryError, purpose: string): Refusal {
  return refusal(
    "temp_dir_unusable",
    `the ${purpose} needs a file in the server's private temporary directory (${error.role}), ` +
      `which ${whatIsWrong(error.problem)}; ${whatToDo(error.problem, error.variable)}`,
  );
}

/** The bound server, or another server named for this one call. */
export function clientFor(context: { tmux: TmuxClient }, socketName?: string): TmuxClient {
  if (socketName === undefined) return context.tmux;
  return {
    bin: context.tmux.bin,
    socket: { kind: "name", name: socketName },
    control: context.tmux.control,
  };
}

/** A tmux target for a session: `$N` as is, a name with `=` so tmux matches it exactly. */
export function sessionTarget(args: SessionArgs): string | null {
  if ((args.session_id === undefined) === (args.session_name === undefined)) return null;
  return args.session_id ?? `=${args.session_name}`;
}

/** How a failed command of `args` is refused, from what tmux said (stderr, or `%error` lines). */
export function failureFor(stderr: string, args: string[]): Refusal {
  if (/no server running|error connecting to|server exited/i.test(stderr)) return NO_SERVER;
  if (/can't find|no such|not found/i.test(stderr)) return NOT_FOUND;
  const reason = tmuxReason(stderr, args);
  return reason === ""
    ? TMUX_FAILED
    : refusal("tmux_failed", `tmux refused the command: ${reason}`);
}

/** The most of tmux's reason a refusal carries, in characters. */
export const REASON_CHARS = 200;
const CUT = "\u2026";

/**
 * tmux's first line of complaint, at most REASON_CHARS long, with control characters shown as
 * `?` and every value `args` gave tmux cut out: tmux repeats a name or target it could not use
 * ("no buffer x", "invalid option: x"), and the agent's own text must not come back through it.
 * The command names and the ids (`%3`, `@2`, `$1`) stay.
 */
function tmuxReason(stderr: string, args: string[]): string {
  let reason = stderr.split("\n").map((line) => line.trim()).find((line) => line !== "") ?? "";
  for (const value of valuesIn(args)) reason = cutValue(reason, value);
  const chars = Array.from(reason.replace(/\p{Cc}/gu, "?"));
  if (chars.length > REASON_CHARS) chars.splice(REASON_CHARS - 1, Infinity, CUT);
  return chars.join("");
}

/**
 * Every argument of a command line but its command names, `;`, `--` and ids, line by line, with
 * a session name's `=` and `:` off too (tmux names the session without them): longest first, so
 * a value is cut before any shorter one inside it.
 */
function valuesIn(args: string[]): string[] {
  const values = new Set<string>();
  let commandName = true;
  for (const arg of args) {
    if (arg === ";" || commandName) {
      commandName = arg === ";";
      continue;
    }
    if (arg === "--" || /^[%@$]\d+$/.test(arg)) continue;
    for (const line of arg.split(/[\r\n]/)) {
      for (const value of [line, line.replace(/^=/, "").replace(/:$/, "")]) {
        if (value.trim() !== "") values.add(value);
      }
    }
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Shorter values are cut only as whole words, so that they do not cut tmux's own words apart. */
const SHORT_VALUE = 4;

/** `text` with `value` cut wherever it occurs (a short one where no letter or digit touches it). */
function cutValue(text: string, value: string): string {
  const word = /[\p{L}\p{N}_]/u;
  let kept = "";
  let from = 0;
  while (true) {
    const at = text.indexOf(value, from);
    if (at < 0) return kept + text.slice(from);
    const end = at + value.length;
    const cut = value.length >= SHORT_VALUE ||
      (!word.test(text[at - 1] ?? "") && !word.test(text[end] ?? ""));
    kept += text.slice(from, at) + (cut ? CUT : value);
    from = end;
  }
}

/** A spawned client's answer; one that succeeded shows its server runs (control_servers.ts). */
async function spawned(client: TmuxClient, args: string[], signal?: AbortSignal) {
  const result = await runTmux(client, args, signal);
  if (result.code === 0) serverAnswered(client);
  return result;
}

/** Runs tmux and turns any failure into the fixed refusal for it. */
export function tmuxCall(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<string>> {
  return outcome(
    client,
    args,
    async () => await controlCall(client, args, signal) ?? await spawned(client, args, signal),
    signal,
  );
}

/**
 * Read-only command lines of one command each, answered per line: through the control
 * connection at one write when one can be had, else by a spawned client per line. A line tmux
 * refused answers null; a server that stops answering makes the whole a tmux_not_answering.
 */
export async function tmuxReads(
  client: TmuxClient,
  lines: string[][],
  signal?: AbortSignal,
): Promise<TmuxOutcome<(string | null)[]>> {
  try {
    const batch = await controlReads(client, lines, signal);
    if (batch) return { ok: true, value: batch.map((answer) => answer.ok ? answer.text : null) };
  } catch (error) {
    if (error instanceof TmuxNotAnswering) return { ok: false, payload: notAnswering(client) };
    if (signal?.aborted) throw error;
  }
  const value: (string | null)[] = [];
  for (const args of lines) {
    const out = await tmuxCallSpawned(client, args, signal);
    if (!out.ok && isNotAnswering(out)) return out;
    value.push(out.ok ? out.value : null);
  }
  return { ok: true, value };
}

/** `tmuxCall` through a spawned client only, for a line a control connection could not run. */
export function tmuxCallSpawned(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<string>> {
  return outcome(client, args, () => spawned(client, args, signal), signal);
}

/**
 * A tmux client that could not start is tmux_unavailable; one that failed running `args`, its
 * refusal (failureFor); a command abandoned unanswered (by TMUX_ANSWER_SECONDS, or by a signal
 * that aborted with TmuxNotAnswering: a wait's own timeout), tmux_not_answering. Any other abort
 * is rethrown.
 */
async function outcome<T>(
  client: TmuxClient,
  args: string[],
  run: () => Promise<{ code: number; stdout: T; stderr: string }>,
  signal?: AbortSignal,
): Promise<TmuxOutcome<T>> {
  let result;
  try {
    result = await run();
  } catch (error) {
    if (error instanceof TmuxNotAnswering) return { ok: false, payload: notAnswering(client) };
    if (signal?.aborted) throw error;
    return { ok: false, payload: TMUX_UNAVAILABLE };
  }
  if (result.code !== 0) return { ok: false, payload: failureFor(result.stderr, args) };
  return { ok: true, value: result.stdout };
}

/**
 * Expands `format` for exactly `target`, checking that tmux resolved the same object: a
 * target that does not exist is not_found, never some other object.
 */
export async function describe(
  client: TmuxClient,
  target: string,
  idFormat: "#{pane_id}" | "#{window_id}" | "#{session_id}",
  format: string,
  signal?: AbortSignal,
): Promise<TmuxOutcome<string[]>> {
  const out = await describeThen(client, target, idFormat, format, [], signal);
  return out.ok ? { ok: true, value: out.value.fields } : out;
}

/**
 * `describe`, then the command `then` in the same tmux invocation (`;` separates them), so a
 * missing target costs no second call and the output comes from the object just checked. With
 * `then`, `format` must expand to one line: the first line is the description, the rest is
 * what `then` printed.
 */
export async function describeThen(
  client: TmuxClient,
  target: string,
  idFormat: "#{pane_id}" | "#{window_id}" | "#{session_id}",
  format: string,
  then: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<{ fields: string[]; output: string }>> {
  const describing = ["display-message", "-p", "-t", target, `${idFormat}\t${format}`];
  const out = await tmuxCall(
    client,
    then.length ? [...describing, ";", ...then] : describing,
    signal,
  );
  if (!out.ok) return naming(out, target);
  const end = then.length ? out.value.indexOf("\n") : -1;
  const header = end < 0 ? out.value.replace(/\n$/, "") : out.value.slice(0, end);
  const [id, ...fields] = header.split("\t");
  if (!target.startsWith("=") && id !== target) return { ok: false, payload: notFound(target) };
  return { ok: true, value: { fields, output: end < 0 ? "" : out.value.slice(end + 1) } };
}

/** A session target resolved to its id, so that later steps name one object exactly. */
export async function resolveSession(
  client: TmuxClient,
  args: SessionArgs,
  signal?: AbortSignal,
): Promise<TmuxOutcome<string>> {
  const target = sessionTarget(args);
  if (target === null) return { ok: false, payload: NEED_ONE_SESSION };
  // A bare `=name` after display-message -t would be read as a window; `=name:` is the session.
  const out = await tmuxCall(
    client,
    ["display-message", "-p", "-t", `${target}:`, "#{session_id}\t#{session_name}"],
    signal,
  );
  if (!out.ok) return naming(out, target);
  const [id, name] = out.value.replace(/\n$/, "").split("\t");
  if (args.session_id !== undefined ? id !== args.session_id : name !== args.session_name) {
    return { ok: false, payload: notFound(target) };
  }
  return { ok: true, value: id };
}

/** `#(` runs a shell command; E: and T: expand option values, which may hold `#(`. */
export function isUnsafeFormat(format: string): boolean {
  return format.includes("#(") || /[{;,]\s*[ET]:/.test(format);
}
