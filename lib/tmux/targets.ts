// How a general tool reaches tmux for one call: which server (the bound socket, or the call's
// own socket_name), which object (an exact id or an exact session name, never tmux's fuzzy
// matching or a "current pane" fallback), and what a failure was, as facts (TmuxFailure): a
// missing server or object, a server that did not answer, else tmux's own reason, one bounded
// line that never repeats what the command was given (paths, names, an agent's text) but the
// ids. The tools say a failure in words (lib/tools/_tmux_refusals.ts); nothing here does.
import {
  runTmux,
  runTmuxRaw,
  type SocketChoice,
  type TmuxClient,
  TmuxNotAnswering,
} from "./tmux.ts";
import { controlCall, controlReads, serverAnswered } from "./control_servers.ts";
import type { TempDirectoryError } from "../host/directory_problems.ts";

export type SessionArgs = { session_id?: string; session_name?: string };

/** Why a tmux step failed. */
export type TmuxFailure =
  /** No tmux server runs on that socket. */
  | { kind: "no_server" }
  /** The object does not exist: `target` names the exact one when the step knows it. */
  | { kind: "not_found"; target?: string }
  /**
   * The server gave no answer in time (TMUX_ANSWER_SECONDS, or the call's timeout) and the
   * command was abandoned: it may still take effect if the server resumes.
   */
  | { kind: "not_answering"; server: SocketChoice }
  /** tmux refused the command: its reason (tmuxReason), "" when it gave none. */
  | { kind: "tmux_failed"; reason: string }
  /**
   * tmux answered, but nothing this server could read: a look without the mark that ends its
   * state line, a screen.
   */
  | { kind: "unreadable"; what: "capture" | "screen" }
  /** tmux ran a command after a look (snapshotThen), but its answer to the look was unreadable. */
  | { kind: "unseen_act" }
  /** The tmux executable could not be started. */
  | { kind: "tmux_unavailable" }
  /** The paste's file in the private directory could not be used. */
  | { kind: "directory"; purpose: "paste"; error: TempDirectoryError }
  /** A session named by neither or both of its id and its name. */
  | { kind: "need_one_session" }
  /**
   * Keys sent as `commands` tmux commands of at most `commandBytes` bytes: the first `typed`
   * went, then `failure` stopped the rest.
   */
  | {
    kind: "partly_typed";
    failure: TmuxFailure;
    typed: number;
    commands: number;
    commandBytes: number;
  };

export type TmuxOutcome<T> = { ok: true; value: T } | { ok: false; failure: TmuxFailure };

/** A failed outcome of `failure`. */
export function failed(failure: TmuxFailure): { ok: false; failure: TmuxFailure } {
  return { ok: false, failure };
}

/**
 * not_found for one exact target: an id (`%3`, `@2`, `$1`) or a session name (`=name`, or
 * `=name:`), as the caller named it.
 */
export function notFound(target: string): TmuxFailure {
  return { kind: "not_found", target: target.replace(/^=/, "").replace(/:$/, "") };
}

/** A not_found failure said again for the exact `target` the step was given. */
function naming(outcome: TmuxOutcome<never>, target: string): TmuxOutcome<never> {
  return !outcome.ok && outcome.failure.kind === "not_found" ? failed(notFound(target)) : outcome;
}

/** The failure of a command abandoned because `client`'s server gave no answer in time. */
export function notAnswering(client: TmuxClient): TmuxFailure {
  return { kind: "not_answering", server: client.socket };
}

/** True when an outcome failed because its tmux server did not answer. */
export function isNotAnswering(outcome: TmuxOutcome<unknown>): boolean {
  return !outcome.ok && outcome.failure.kind === "not_answering";
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

/** Why a command of `args` failed, from what tmux said (stderr, or `%error` lines). */
export function failureFor(stderr: string, args: string[]): TmuxFailure {
  if (/no server running|error connecting to|server exited/i.test(stderr)) {
    return { kind: "no_server" };
  }
  if (/can't find|no such|not found/i.test(stderr)) return { kind: "not_found" };
  return { kind: "tmux_failed", reason: tmuxReason(stderr, args) };
}

/** The most of tmux's reason a failure carries, in characters. */
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
  return answered(client, await runTmux(client, args, signal));
}

/** A spawned client's result, noting that the server answered when the command succeeded. */
function answered<T extends { code: number }>(client: TmuxClient, result: T): T {
  if (result.code === 0) serverAnswered(client);
  return result;
}

/** Runs tmux and says why, when it failed. */
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
    if (error instanceof TmuxNotAnswering) return failed(notAnswering(client));
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

/**
 * `tmuxCall` through a spawned client only, with stdout as the exact bytes tmux wrote: a capture
 * keeps the bytes that are not UTF-8.
 */
export function tmuxCallBytes(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<Uint8Array>> {
  return outcome(
    client,
    args,
    async () => answered(client, await runTmuxRaw(client, args, signal)),
    signal,
  );
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
 * A tmux client that could not start is tmux_unavailable; one that failed running `args`, what
 * it said (failureFor); a command abandoned unanswered (by TMUX_ANSWER_SECONDS, or by a signal
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
    if (error instanceof TmuxNotAnswering) return failed(notAnswering(client));
    if (signal?.aborted) throw error;
    return failed({ kind: "tmux_unavailable" });
  }
  if (result.code !== 0) return failed(failureFor(result.stderr, args));
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
  if (!target.startsWith("=") && id !== target) return failed(notFound(target));
  return { ok: true, value: { fields, output: end < 0 ? "" : out.value.slice(end + 1) } };
}

/** A session target resolved to its id, so that later steps name one object exactly. */
export async function resolveSession(
  client: TmuxClient,
  args: SessionArgs,
  signal?: AbortSignal,
): Promise<TmuxOutcome<string>> {
  const target = sessionTarget(args);
  if (target === null) return failed({ kind: "need_one_session" });
  // A bare `=name` after display-message -t would be read as a window; `=name:` is the session.
  const out = await tmuxCall(
    client,
    ["display-message", "-p", "-t", `${target}:`, "#{session_id}\t#{session_name}"],
    signal,
  );
  if (!out.ok) return naming(out, target);
  const [id, name] = out.value.replace(/\n$/, "").split("\t");
  if (args.session_id !== undefined ? id !== args.session_id : name !== args.session_name) {
    return failed(notFound(target));
  }
  return { ok: true, value: id };
}

/** `#(` runs a shell command; E: and T: expand option values, which may hold `#(`. */
export function isUnsafeFormat(format: string): boolean {
  return format.includes("#(") || /[{;,]\s*[ET]:/.test(format);
}
