// One tmux_run, from a taken slot to its answer, in the order it happens: P — prepare (the
// request waits in the shell's channel until its line editor is idle; nothing is authorized),
// A — authorize (the tmux-queue guard, the commit point: from `granted` on every error carries
// the receipt), E — execute (the helper runs the script; every way it cannot finish stops the
// script's group and says what the stop confirmed), R — retire (the slot is freed, always).
// The events a run waits for arrive on its slot's queue, put there by the shell's session
// (lib/run/shell_session.ts); the tool's gate checks (lib/tools/tmux_run.ts) come first.
import type { Completion, HelperMessage, RefusalReason, ServerMessage } from "./frames.ts";
import { authorize } from "./guard.ts";
import { randomHex } from "../util/ids.ts";
import {
  isSameProcess,
  type ProcessIdentity,
  readIdentity,
  workingDirectory,
} from "../host/processes.ts";
import { describeHalt, describeStop, stopGroup, type StopReport } from "./process_group.ts";
import { failurePayload, type Receipt, RunFailure } from "./run_outcome.ts";
import { type EncodedOutput, encodeOutput } from "./output_encoding.ts";
import { RecentRuns } from "./recent_runs.ts";
import { type NoticeOutcome, runNotice } from "./run_notice.ts";
import { MAX_OUTPUT_LIMIT } from "./contract.ts";
import type { Journal } from "../journal/journal.ts";
import { type Outcome, runEntry } from "../journal/entries.ts";
import { success, type ToolPayload } from "../mcp/tool_result.ts";
import {
  serverLabel,
  socketPath,
  TMUX_ANSWER_SECONDS,
  type TmuxClient,
  TmuxNotAnswering,
} from "../tmux/tmux.ts";

/**
 * How long a stopped run waits for the helper to confirm the stop (its own TERM then KILL takes
 * at most two grace periods of 0.5 s) before the server stops the group itself.
 */
const STOP_CONFIRM_MS = 1500;
/** How often a running script's shell and tmux server are looked up while it runs. */
const WATCH_INTERVAL_MS = 200;
/** How long shutdown waits for in-flight runs to stop and answer (spec: 2 s in all). */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * Why the enrollment ended: the shell's line channel or the helper's frame link went away, or a
 * second connection presented the pane's invitation, so which one is the shell is in doubt.
 */
export type Departure = "shell" | "helper" | "contested";

export type RunEvent =
  | { kind: "busy" }
  | { kind: "ready"; token: string; digest: string; helperPid: number }
  | { kind: "helper"; message: HelperMessage; body: Uint8Array }
  | { kind: "gone"; cause: Departure };

/** The one run a shell may have in flight, and the events that reach it. */
export type RunSlot = { runId: string; events: EventQueue<RunEvent> };

export class EventQueue<T> {
  #items: T[] = [];
  #waiter: ((item: T) => void) | null = null;

  push(item: T): void {
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter(item);
    } else this.#items.push(item);
  }

  /** The next event, or the signal's reason thrown when it aborts first. */
  next(signal: AbortSignal): Promise<T> {
    if (this.#items.length) return Promise.resolve(this.#items.shift()!);
    signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#waiter = null;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiter = (item) => {
        signal.removeEventListener("abort", onAbort);
        resolve(item);
      };
    });
  }
}

/** An enrolled shell as its runs use it; lib/run/shell_session.ts makes one per accepted shell. */
export type EnrolledShell = {
  paneId: string;
  identity: ProcessIdentity;
  /** The tmux server process that owned the pane at enrollment. */
  tmuxServer: ProcessIdentity | null;
  processGeneration: string;
  enrollmentGeneration: string;
  helperPid: number;
  /** The run in flight; written only by RunSlots. */
  run: RunSlot | null;
  sendLine: (line: string) => Promise<void>;
  sendFrame: (message: ServerMessage, body?: Uint8Array) => Promise<void>;
  /**
   * Ends the enrollment. With a run in flight the run is told (a "gone" event) and keeps the
   * helper link so it can stop the script; the run's retire step calls `release`.
   */
  discard: (cause?: Departure) => void;
  /** Closes both connections once no run needs them (or at once, `force`d at shutdown). */
  release: (force?: boolean) => void;
};

/**
 * The runs in flight and the only writer of `EnrolledShell.run`: one slot per shell, a count
 * per server, and shutdown, which tells every run to stop and waits for its answer. The last
 * runs' outcomes stay readable in `recent` (tmux_capabilities lists them).
 */
export class RunSlots {
  readonly recent = new RecentRuns();
  #inFlight = 0;
  #runs = new Set<Promise<unknown>>();
  #closing = new AbortController();

  /** Aborts (with no reason a caller could mistake for a deadline) when shutdown begins. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** A fresh slot on `shell`, or why there is none: its own run, or `limit` runs in flight. */
  take(shell: EnrolledShell, limit: number): RunSlot | "shell_busy" | "server_full" {
    if (shell.run) return "shell_busy";
    if (this.#inFlight >= limit) return "server_full";
    const slot: RunSlot = { runId: randomHex(), events: new EventQueue<RunEvent>() };
    shell.run = slot;
    this.#inFlight++;
    return slot;
  }

  /** Shutdown waits for `run` to settle (its group stopped, its call answered). */
  track<T>(run: Promise<T>): Promise<T> {
    this.#runs.add(run);
    run.finally(() => this.#runs.delete(run)).catch(() => {});
    return run;
  }

  free(shell: EnrolledShell, slot: RunSlot): void {
    if (shell.run === slot) shell.run = null;
    shell.release();
    this.#inFlight--;
  }

  /** Tells the runs in flight to stop, and waits for them within the shutdown grace. */
  async close(): Promise<void> {
    this.#closing.abort();
    if (!this.#runs.size) return;
    const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS));
    await Promise.race([Promise.allSettled([...this.#runs]), grace]);
  }
}

/** Seams for tests that cause real faults (a real respawn, a real kill) at an exact phase. */
export type RunHooks = {
  beforeGuard?: (paneId: string) => Promise<void>;
  afterGuard?: (paneId: string) => Promise<void>;
};

/** What the server lends every run, fixed at startup. */
export type RunServer = {
  readonly tmux: TmuxClient;
  readonly generation: string;
  readonly hooks: Readonly<RunHooks>;
  /**
   * A cancelled request gets no response (MCP), so its outcome is also logged, for clients that
   * listen; every outcome stays readable in RunSlots.recent either way.
   */
  readonly reportCancelled: (payload: ToolPayload) => void;
  /** The person's journal: a line for every run that took its slot, however it ended. */
  readonly journal: Journal;
};

export type Interruption = "deadline" | "cancelled" | "closed";

/** One run, made by tmux_run's gate once its slot is taken; the phases read it, none writes. */
export type Run = {
  readonly server: RunServer;
  readonly slots: RunSlots;
  readonly shell: EnrolledShell;
  readonly slot: RunSlot;
  readonly target: { kind: "pane"; id: string; generation: string };
  readonly script: Uint8Array;
  /** The script's SHA-256, hex: what the helper checks and the receipt names. */
  readonly digest: string;
  readonly limits: { readonly stdout: number; readonly stderr: number };
  /** Aborts on a cancel, the run deadline or shutdown; `interruption` says which. */
  readonly interrupt: AbortSignal;
  readonly interruption: () => Interruption;
  /** The deadline behind `interrupt`'s "deadline", as the error states it. */
  readonly deadlineSeconds: number;
  /** Runs a step that waits, reporting progress with `message` while it does. */
  readonly during: <T>(message: string, step: () => Promise<T>) => Promise<T>;
  /**
   * Told the bytes the script has written so far, when the caller wants progress: while the
   * script runs the helper is asked every COUNT_INTERVAL_MS (it holds the outputs, not us).
   */
  readonly onOutput?: (bytes: OutputSoFar) => void;
};

export type OutputSoFar = { stdout: number; stderr: number };

const COUNT_INTERVAL_MS = 1000;

/** What a run that completed answers (tmux_run's success data). */
type Completed = {
  target: Run["target"];
  authorization: Receipt;
  completion: Completion;
  stdout: EncodedOutput;
  stderr: EncodedOutput;
};

/**
 * The whole run, P → A → E, then R whatever happened. Its outcome is decided here, once, and
 * recorded in `slots.recent` as well as answered, since a cancelled call's answer reaches no one.
 */
export async function runScript(run: Run): Promise<ToolPayload> {
  const startedAt = new Date();
  const began = performance.now();
  const record = run.slots.recent.begin({
    runId: run.slot.runId,
    paneId: run.shell.paneId,
    scriptSha256: run.digest,
    scriptBytes: run.script.length,
    startedAt,
  });
  const seen: Seen = { cwd: Promise.resolve(null) };
  const journal = (outcome: Outcome, completion: Completion | null) =>
    run.server.journal.record(journalEntry(run, seen, startedAt, began, outcome, completion));
  try {
    const completed = await run.slots.track(prepareAuthorizeExecute(run, seen));
    record.completed(completed.completion);
    journal({ ok: true }, completed.completion);
    tellThePerson(run, { completion: completed.completion }, began);
    return success(completed);
  } catch (error) {
    record.failed(error);
    if (error instanceof RunFailure && error.receipt) {
      tellThePerson(run, { code: error.code }, began);
    }
    journal(
      error instanceof RunFailure
        ? { ok: false, code: error.code, delivery: error.delivery }
        : { ok: false, code: "server_fault", delivery: "possibly_sent" },
      error instanceof RunFailure ? error.completion : null,
    );
    throw error;
  } finally {
    retire(run);
  }
}

/**
 * The notice under the person's prompt for a run that passed the guard (lib/run/run_notice.ts):
 * one line on the shell's channel, which helper.sh shows with `zle -M` at an idle, empty prompt
 * and drops otherwise, or always when the person enrolled with `--quiet`. Sent, never awaited: a
 * shell that is gone just does not read it.
 */
function tellThePerson(run: Run, outcome: NoticeOutcome, began: number): void {
  const script = new TextDecoder().decode(run.script);
  const notice = runNotice(run.slot.runId, script, outcome, performance.now() - began);
  run.shell.sendLine(`M ${notice}`).catch(() => {});
}

/** What a run learns on its way that only its journal line keeps. */
type Seen = { cwd: Promise<string | null> };

/** The run's journal line: facts, never its output; the script's text only when kept. */
async function journalEntry(
  run: Run,
  seen: Seen,
  startedAt: Date,
  began: number,
  outcome: Outcome,
  completion: Completion | null,
) {
  const { server, shell } = run;
  return runEntry({
    server: { pid: Deno.pid, generation: server.generation },
    socket: socketPath(server.tmux.socket),
    paneId: shell.paneId,
    enrollmentGeneration: shell.enrollmentGeneration,
    started: startedAt,
    durationMs: performance.now() - began,
    run: {
      run_id: run.slot.runId,
      script_sha256: run.digest,
      script_bytes: run.script.length,
      cwd: await seen.cwd,
      completion: completion ?? { state: "unobserved" },
      ...(server.journal.keepsScripts && { script: new TextDecoder().decode(run.script) }),
    },
    outcome,
  });
}

async function prepareAuthorizeExecute(run: Run, seen: Seen): Promise<Completed> {
  const { digest, helperPid } = await prepare(run);
  // The shell answered ready: idle at its prompt, its directory is the one the script gets.
  seen.cwd = workingDirectory(run.shell.identity.pid);
  // From here the helper holds the request; if no script follows, tell it to drop it.
  let scriptSent = false;
  try {
    const receipt = await authorizeRun(run, digest, helperPid);
    await run.shell.sendFrame(
      {
        type: "script",
        run_id: run.slot.runId,
        stdout_limit: run.limits.stdout,
        stderr_limit: run.limits.stderr,
      },
      run.script,
    );
    scriptSent = true;
    return await run.during("the script is running", () => execute(run, receipt));
  } finally {
    if (!scriptSent) await run.shell.sendFrame({ type: "abort", run_id: run.slot.runId });
  }
}

const SHELL_GONE = "the enrolled shell is gone (it exited or the pane was respawned); a person " +
  "must enroll the pane again";
const CONTESTED = "another process presented this pane's invitation token on the private " +
  "channel as well as its shell (a race for the enrollment by someone who read the setup file), " +
  "so the enrollment was dropped";
const CONTESTED_ADVICE = "a person must enroll the pane again, with the setup file in a " +
  "directory only they can read";

// P — prepare: nothing is authorized yet, so every failure here says nothing was sent.

/** Sends the request and waits for the helper's `ready`, which names the helper's pid. */
async function prepare(run: Run): Promise<{ digest: string; helperPid: number }> {
  const { shell, slot, digest } = run;
  if (!await isSameProcess(shell.identity)) {
    shell.discard();
    throw new RunFailure("stale_target", SHELL_GONE);
  }
  const token = randomHex();
  await shell.sendLine(`R ${slot.runId} ${token} ${digest}`);

  // The request waits in the shell's channel until ZLE is idle; a busy shell just doesn't answer.
  const ready = await run.during(
    "waiting for the shell to be idle at its prompt",
    () => awaitShell(run),
  );
  if (ready.kind === "busy") {
    throw new RunFailure(
      "unsupported",
      "the pane's line editor is not idle and empty (someone is typing, or a continuation " +
        "prompt, a search, a completion question, a half-typed key sequence or a vi operator " +
        "is open); nothing was sent. This is transient: call again once the person's line is " +
        "empty",
    );
  }
  if (ready.kind === "gone" && ready.cause === "contested") {
    throw new RunFailure("transport_error", `${CONTESTED}; nothing was sent. ${CONTESTED_ADVICE}`);
  }
  if (ready.kind === "gone") throw new RunFailure("stale_target", SHELL_GONE);
  if (ready.kind !== "ready" || ready.token !== token || ready.digest !== digest) {
    throw new RunFailure("transport_error", "the helper's answer did not match the request");
  }
  return { digest, helperPid: ready.helperPid };
}

/** Waits for the shell's answer to a request; an interruption withdraws the request. */
async function awaitShell(run: Run): Promise<RunEvent> {
  try {
    return await run.slot.events.next(run.interrupt);
  } catch {
    const code = run.interruption();
    throw new RunFailure(
      code,
      code === "deadline"
        ? "the pane's shell stayed busy (a command in the foreground) until the run " +
          "deadline; nothing was sent and the request is withdrawn. Call again once its " +
          "prompt is back"
        : code === "cancelled"
        ? "the request was cancelled before anything was sent"
        : "the server is shutting down; nothing was sent",
    );
  }
}

// A — authorize: the commit point.

/** The guard's grant as a receipt, once the helper proved to be the enrolled shell's child. */
async function authorizeRun(run: Run, digest: string, helperPid: number): Promise<Receipt> {
  const { server, shell } = run;
  const [helper, shellSame] = await Promise.all([
    readIdentity(helperPid),
    isSameProcess(shell.identity),
  ]);
  if (!helper || helper.parentPid !== shell.identity.pid || !shellSame) {
    throw new RunFailure("transport_error", "the helper is not the enrolled shell's child");
  }
  await server.hooks.beforeGuard?.(shell.paneId);
  let verdict;
  try {
    verdict = await authorize(server.tmux, shell.paneId, shell.identity.pid, run.interrupt);
  } catch (error) {
    if (error instanceof TmuxNotAnswering) {
      throw new RunFailure(
        "deadline",
        `${serverLabel(server.tmux)} did not answer the authorization within ` +
          `${TMUX_ANSWER_SECONDS} s, so the run was abandoned before its script was sent. It may ` +
          "be stopped (SIGSTOP, a debugger) or overloaded: check it with tmux list-sessions, " +
          "then call again",
        "possibly_sent",
      );
    }
    const code = run.interruption();
    throw new RunFailure(code, `the authorization was interrupted (${code})`, "possibly_sent");
  }
  if (verdict === "aliased") {
    throw new RunFailure(
      "unsupported",
      "a tmux command-alias rebinds if-shell or display-message, which the guard relies on; " +
        "nothing was sent. Remove that alias (show-options -s command-alias) to use tmux_run",
    );
  }
  if (verdict === "denied") {
    throw new RunFailure(
      "stale_target",
      "the pane was replaced, died or is gone; nothing was sent. Check tmux_capabilities " +
        "enrolled_panes",
    );
  }
  // Granted: the commit point. Every error from here on carries this receipt.
  const receipt: Receipt = {
    state: "authorized",
    run_id: run.slot.runId,
    script_digest: digest,
    server_generation: server.generation,
    pane_id: shell.paneId,
    enrollment_generation: shell.enrollmentGeneration,
    process_generation: shell.processGeneration,
  };
  await server.hooks.afterGuard?.(shell.paneId);
  if (!await isSameProcess(shell.identity)) {
    throw new RunFailure("stale_target", SHELL_GONE, "observed", receipt);
  }
  return receipt;
}

// E — execute: the script was sent; what ends it is its outcome or a stop.

/** Why a running script has to be stopped, and the error that will say so. */
type StopCause = {
  code: Interruption | "stale_target" | "transport_error";
  what: string;
  /** What the agent can do instead, said after what the stop confirmed. */
  advice?: string;
  helperGone?: boolean;
};

/** The script's `sh` as the helper reported it started. */
type Started = { pid: number; adopts: boolean };

const TERMINAL_ADVICE = "a script runs in the pane's background and gets no terminal input: " +
  "give it its input in the script (printf 'y\\n' | cmd, a here-document, or a file), or run " +
  "an interactive program in a pane and answer it with send_keys";

/**
 * Waits for the script's outcome while watching the shell and the tmux server. Every way a run
 * cannot finish (deadline, cancel, shutdown, the shell or tmux server gone, the helper gone)
 * stops the script's whole process group and says what the stop confirmed.
 */
async function execute(run: Run, receipt: Receipt): Promise<Completed> {
  const { slot, shell } = run;
  const watch = watchTarget(shell);
  const stopNow = AbortSignal.any([run.interrupt, watch.signal]);
  let started: Started | null = null;
  const counting = run.onOutput &&
    setInterval(() => shell.sendFrame({ type: "count", run_id: slot.runId }), COUNT_INTERVAL_MS);
  try {
    while (true) {
      let event: RunEvent;
      try {
        event = await slot.events.next(stopNow);
      } catch {
        const cause: StopCause = watch.signal.aborted
          ? { code: "stale_target", what: watch.signal.reason }
          : interruptionCause(run.interruption(), run.deadlineSeconds);
        return await stopAndReport(run, receipt, started, cause);
      }
      if (event.kind === "gone") {
        return await stopAndReport(run, receipt, started, departureCause(event.cause));
      }
      if (event.kind !== "helper") continue;
      if (event.message.type === "started") {
        started = event.message;
        continue;
      }
      if (event.message.type === "counted") {
        run.onOutput?.({ stdout: event.message.stdout_bytes, stderr: event.message.stderr_bytes });
        continue;
      }
      return outcome(run, receipt, event.message, event.body);
    }
  } finally {
    clearInterval(counting);
    watch.stop();
  }
}

function interruptionCause(code: Interruption, deadlineSeconds: number): StopCause {
  if (code === "deadline") {
    return {
      code,
      what: `the script ran past the run deadline (${deadlineSeconds} s)`,
      advice: "for longer work call with a progress token (_meta.progressToken) or as a " +
        "task, which get limits.run_deadline_with_progress_seconds in tmux_capabilities, or " +
        "start it in the background with its output redirected to a file (nohup cmd >file " +
        "2>&1 &) and read the file in later runs",
    };
  }
  if (code === "cancelled") return { code, what: "the run was cancelled" };
  return { code, what: "the server is shutting down" };
}

function departureCause(cause: Departure): StopCause {
  if (cause === "contested") {
    return {
      code: "transport_error",
      what: `${CONTESTED} during the run`,
      advice: CONTESTED_ADVICE,
    };
  }
  return cause === "helper"
    ? { code: "closed", what: "the helper's channel closed during the run", helperGone: true }
    : { code: "stale_target", what: "the enrolled shell's channel closed during the run" };
}

/** What a message from the helper that ends the run makes of it: completed, or a failure. */
function outcome(
  run: Run,
  receipt: Receipt,
  message: HelperMessage,
  body: Uint8Array,
): Completed {
  switch (message.type) {
    case "result":
      return {
        target: run.target,
        authorization: receipt,
        completion: message.completion,
        stdout: encodeOutput(body.subarray(0, message.stdout_bytes)),
        stderr: encodeOutput(body.subarray(message.stdout_bytes)),
      };
    case "overflow": {
      const stream = message.stream;
      const limit = stream === "stdout" ? run.limits.stdout : run.limits.stderr;
      throw new RunFailure(
        "capacity",
        `${stream} went over ${stream}_limit (${limit} bytes), so no output is returned and ` +
          `the script was ${describeStop(message.stop)}. Raise ${stream}_limit (up to ` +
          `${MAX_OUTPUT_LIMIT}), or write the output to a file and read its tail (tail -c 60000 ` +
          "FILE)",
        "possibly_sent",
        receipt,
      );
    }
    case "drain_timeout": {
      const exit = message.completion.state === "exited"
        ? `sh exited ${message.completion.exit_status}`
        : `sh was killed by signal ${message.completion.signal}`;
      throw new RunFailure(
        "deadline",
        `${exit}, but a background process kept ${message.open.join(" and ")} open past ` +
          "0.25 s, so no output is returned; redirect background output (e.g. " +
          "`cmd >/dev/null 2>&1 &`)",
        "observed",
        receipt,
        message.completion,
      );
    }
    case "refused":
      throw refusal(message.reason, receipt);
    default:
      throw new RunFailure(
        "transport_error",
        "the helper answered the script out of turn",
        "possibly_sent",
        receipt,
      );
  }
}

/**
 * The helper ran nothing. When `sh` could not start the helper knows that first-hand (its child
 * failed before exec, or no child was made), so the run is `not_sent` although it was
 * authorized; a refusal of the script as sent stays the contract's transport_error.
 */
function refusal(reason: RefusalReason, receipt: Receipt): RunFailure {
  switch (reason) {
    case "directory":
      return new RunFailure(
        "unsupported",
        "the shell's current directory could not be entered (it was removed, or its " +
          "permissions changed), so nothing ran. The pane's shell has to cd to an existing " +
          "directory first (a person, or send_keys), then call again",
        "not_sent",
        receipt,
      );
    case "resources":
      return new RunFailure(
        "capacity",
        "the system refused the helper a new process, pipe or memory for the script (a limit " +
          "such as ulimit -u or a cgroup's pids.max was reached), so nothing ran. Call again " +
          "once processes have ended or the limit is raised",
        "not_sent",
        receipt,
      );
    case "start":
      return new RunFailure(
        "unsupported",
        "/bin/sh could not be started for the script, so nothing ran",
        "not_sent",
        receipt,
      );
    case "leaving":
      return new RunFailure(
        "closed",
        "the helper is shutting down, so nothing ran",
        "not_sent",
        receipt,
      );
    default:
      return new RunFailure(
        "transport_error",
        `the helper refused the script as it arrived (${AS_SENT[reason]}), so nothing ran by ` +
          "its account",
        "possibly_sent",
        receipt,
      );
  }
}

const AS_SENT: Record<"digest" | "nul" | "unknown_run", string> = {
  digest: "its SHA-256 did not match the request's",
  nul: "it held a NUL byte",
  unknown_run: "no request of that run was waiting",
};

/**
 * Stops the script's group: the helper is asked first (it is `sh`'s parent and reaps it); if
 * it does not confirm in time, or is gone, the server signals the group itself. A result that
 * arrives meanwhile is the script having finished first, and is returned as such.
 */
async function stopAndReport(
  run: Run,
  receipt: Receipt,
  startedBefore: Started | null,
  cause: StopCause,
): Promise<Completed> {
  const { shell, slot } = run;
  let started = startedBefore;
  let confirmed: { stop: StopReport; completion: Completion | null } | null = null;
  if (!cause.helperGone) {
    await shell.sendFrame({ type: "cancel", run_id: slot.runId });
    const limit = AbortSignal.timeout(STOP_CONFIRM_MS);
    while (!confirmed) {
      const event = await slot.events.next(limit).catch(() => null);
      if (!event || event.kind === "gone") break;
      if (event.kind !== "helper") continue;
      const message = event.message;
      if (message.type === "started") started = message;
      else if (message.type === "counted") continue;
      else if (message.type === "cancelled") confirmed = message;
      else return outcome(run, receipt, message, event.body);
    }
  }
  let report: StopReport | null = null;
  if (confirmed) report = confirmed.stop;
  else {
    // The helper is gone or did not answer: its link is in doubt, and the group is ours to stop.
    shell.discard("helper");
    if (started) report = await stopGroup(started.pid, started.adopts);
  }
  const stopped = confirmed || started
    ? `the script was ${describeStop(report)}`
    : "the helper never reported the script as started";
  // A script the terminal had stopped was not slow: it waited for input it can never get.
  const halt = describeHalt(report);
  const what = halt ? `${cause.what}, ${halt}` : cause.what;
  const advice = halt ? TERMINAL_ADVICE : cause.advice;
  const failure = new RunFailure(
    cause.code,
    [what, stopped, advice].filter(Boolean).join("; "),
    "possibly_sent",
    receipt,
    confirmed?.completion ?? null,
  );
  if (cause.code === "cancelled") run.server.reportCancelled(failurePayload(failure));
  throw failure;
}

/**
 * Looks up, every 200 ms, whether the enrolled shell and its tmux server are still the same
 * processes; the signal aborts, with the sentence to report, when either is gone, so a run
 * whose target died ends within a fraction of a second rather than at the deadline.
 */
function watchTarget(shell: EnrolledShell): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  let checking = false;
  const timer = setInterval(async () => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    try {
      if (!await isSameProcess(shell.identity)) {
        controller.abort("the enrolled shell exited during the run");
      } else if (shell.tmuxServer && !await isSameProcess(shell.tmuxServer)) {
        controller.abort("the tmux server exited during the run");
      }
    } finally {
      checking = false;
    }
  }, WATCH_INTERVAL_MS);
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

// R — retire: whatever happened, the shell's slot and the server's count are freed.

function retire(run: Run): void {
  run.slots.free(run.shell, run.slot);
}
