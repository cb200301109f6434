// tmux_run: an authored script, run by an enrolled zsh's helper, with native completion. The
// phases read in order — prepare (nothing authorized), authorize (the tmux-queue guard, the
// commit point), execute, retire (always) — and every failure is a RunFailure that says what
// is known; run_outcome.ts turns it into `{code, delivery, effects}`.
import type { Departure, EnrolledShell, RunEvent, RunSlot } from "../run/enrollment.ts";
import { EventQueue } from "../run/enrollment.ts";
import type { Completion, HelperMessage } from "../run/frames.ts";
import { authorize } from "../run/guard.ts";
import { randomHex, sha256Hex } from "../ids.ts";
import { isSameProcess, readIdentity } from "../run/procfs.ts";
import { describeStop, stopGroup, type StopReport } from "../run/process_group.ts";
import { failurePayload, type Receipt, RunFailure } from "../run/run_outcome.ts";
import { schemas } from "../mcp/schemas.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "../mcp/server_context.ts";
import { success, type ToolPayload } from "../mcp/tool_result.ts";
import { encodeOutput } from "../run/output_encoding.ts";
import { DEFAULT_OUTPUT_LIMIT, MAX_CONCURRENT_RUNS, MAX_SCRIPT_BYTES } from "./toolkit.ts";
/**
 * How long a stopped run waits for the helper to confirm the stop (its own TERM then KILL takes
 * at most two grace periods of 0.5 s) before the server stops the group itself.
 */
const STOP_CONFIRM_MS = 1500;
/** How often a running script's shell and tmux server are looked up while it runs. */
const WATCH_INTERVAL_MS = 200;
const PROGRESS_INTERVAL_MS = 1000;

type RunInput = {
  target: { kind: "pane"; id: string; generation: string };
  script: string;
  stdout_limit?: number;
  stderr_limit?: number;
};

type Interruption = "deadline" | "cancelled" | "closed";

export const tmuxRunTool: ToolDefinition = {
  name: "tmux_run",
  title: "Run a script in an enrolled zsh pane",
  toolset: null,
  description:
    "Run an authored POSIX sh script inside a zsh pane that a person enrolled for this server, " +
    "and get its native exit status or signal and separate stdout/stderr, with a receipt. " +
    'Parameters: target is {kind: "pane", id: the enrolled pane\'s %N, generation}, and ' +
    "target.generation is the top-level generation from tmux_capabilities (not " +
    "enrollment_generation); script is run " +
    "as /bin/sh -c, at most 65536 UTF-8 bytes, no NUL; stdout_limit and stderr_limit are bytes " +
    "kept per stream (default 65536, max 262144): output over a limit fails the run " +
    "(capacity) with no output, so raise the limit or write to a file and read its tail. The " +
    "run deadline (limits.run_deadline_seconds in tmux_capabilities, 30 s by default) covers " +
    "waiting for the prompt and the script; for longer work start it in the background with " +
    "its output redirected to a file and poll. Background jobs must redirect their output " +
    "(>file 2>&1): one that keeps stdout or stderr open past the script's exit fails the " +
    "run (deadline) without its output. It runs only while the " +
    "pane's prompt is idle and empty, never types into the terminal, closes stdin, and " +
    "inherits the shell's cwd and exported environment; changes (cd, export) do not persist. " +
    "For a pane that is not enrolled use run_command; for keystrokes into a program use " +
    "send_keys.",
  inputSchema: schemas.tmuxRunInput,
  outputSchema: schemas.tmuxRunOutput,
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  handle: async (context, args, extra) => {
    try {
      return await run(context, args as RunInput, extra);
    } catch (error) {
      if (error instanceof RunFailure) return failurePayload(error);
      throw error;
    }
  },
};

async function run(context: ServerContext, input: RunInput, extra: ToolExtra) {
  // P — prepare: gates, limits, target, slot.
  const script = new TextEncoder().encode(input.script);
  if (script.length > MAX_SCRIPT_BYTES || !input.script.isWellFormed()) {
    throw new RunFailure(
      "invalid_input",
      "`script` must be at most 65536 UTF-8 bytes of well-formed text (no lone surrogate); " +
        "put larger content in a file and run a short script that reads it",
      "not_sent",
      null,
      null,
      true,
    );
  }
  if (extra.signal.aborted) throw new RunFailure("cancelled", "the request was cancelled");
  const stdoutLimit = input.stdout_limit ?? DEFAULT_OUTPUT_LIMIT;
  const stderrLimit = input.stderr_limit ?? DEFAULT_OUTPUT_LIMIT;
  if (4096 + 6 * (stdoutLimit + stderrLimit) > context.config.maxResponseBytes) {
    throw new RunFailure(
      "capacity",
      "stdout_limit and stderr_limit together exceed the server's response budget " +
        "(--max-response-bytes); lower them",
    );
  }
  if (input.target.generation !== context.generation) {
    throw new RunFailure(
      "stale_target",
      "target.generation is not this server's generation: pass the top-level generation " +
        "from tmux_capabilities (not an enrolled pane's enrollment_generation); it changes " +
        "when the server restarts",
    );
  }
  const shell = context.enrollments?.shells.get(input.target.id);
  if (!shell) {
    throw new RunFailure(
      "unsupported",
      `pane ${input.target.id} is not enrolled for tmux_run on this server; a person enrolls ` +
        `it by typing eval "$(tmux-mcp enroll)" in it (the enroll_pane prompt shows how); ` +
        "tmux_capabilities lists enrolled_panes. Meanwhile run_command works in any shell pane",
    );
  }
  if (shell.run) {
    throw new RunFailure(
      "capacity",
      "another run is in progress on this shell; call again when it has finished",
    );
  }
  if (context.runsInFlight >= MAX_CONCURRENT_RUNS) {
    throw new RunFailure(
      "capacity",
      "the server is running its maximum number of runs (8); call again when one has finished",
    );
  }
  const slot: RunSlot = { runId: randomHex(), events: new EventQueue<RunEvent>() };
  shell.run = slot;
  context.runsInFlight++;
  const deadline = AbortSignal.timeout(context.config.runTimeoutSeconds * 1000);
  const closing = context.enrollments!.closing;
  const interrupt = AbortSignal.any([extra.signal, deadline, closing]);
  const interruption = (): Interruption =>
    closing.aborted ? "closed" : extra.signal.aborted ? "cancelled" : "deadline";
  const during = progressReporter(extra.progress);
  try {
    return await context.enrollments!.track(
      prepareAndRun(context, shell, slot, { input, script, interrupt, interruption, during }),
    );
  } finally {
    // R — retire: free both slots whatever happened.
    if (shell.run === slot) shell.run = null;
    shell.release();
    context.runsInFlight--;
  }
}

type RunRequest = {
  input: RunInput;
  script: Uint8Array;
  interrupt: AbortSignal;
  interruption: () => Interruption;
  during: <T>(message: string, step: () => Promise<T>) => Promise<T>;
};

async function prepareAndRun(
  context: ServerContext,
  shell: EnrolledShell,
  slot: RunSlot,
  { input, script, interrupt, interruption, during }: RunRequest,
): Promise<ToolPayload> {
  if (!await isSameProcess(shell.identity)) {
    shell.discard();
    throw new RunFailure(
      "stale_target",
      "the enrolled shell is gone (it exited or the pane was respawned); a person must " +
        "enroll the pane again",
    );
  }
  const digest = await sha256Hex(script);
  const token = randomHex();
  await shell.sendLine(`R ${slot.runId} ${token} ${digest}`);

  // The request waits in the shell's channel until ZLE is idle; a busy shell just doesn't answer.
  const ready = await during(
    "waiting for the shell to be idle at its prompt",
    () => awaitShell(slot, interrupt, interruption),
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
  if (ready.kind === "gone") {
    throw new RunFailure(
      "stale_target",
      "the enrolled shell is gone (it exited or the pane was respawned); a person must " +
        "enroll the pane again",
    );
  }
  if (ready.kind !== "ready" || ready.token !== token || ready.digest !== digest) {
    throw new RunFailure("transport_error", "the helper's answer did not match the request");
  }
  // From here the helper holds the request; if no script follows, tell it to drop it.
  let scriptSent = false;
  try {
    return await authorizeAndExecute(context, shell, slot, ready.helperPid, digest, {
      input,
      script,
      interrupt,
      interruption,
      during,
    }, () => scriptSent = true);
  } finally {
    if (!scriptSent) await shell.sendFrame({ type: "abort", run_id: slot.runId });
  }
}

async function authorizeAndExecute(
  context: ServerContext,
  shell: EnrolledShell,
  slot: RunSlot,
  helperPid: number,
  digest: string,
  { input, script, interrupt, interruption, during }: RunRequest,
  markSent: () => void,
): Promise<ToolPayload> {
  const helper = await readIdentity(helperPid);
  if (!helper || helper.parentPid !== shell.identity.pid || !await isSameProcess(shell.identity)) {
    throw new RunFailure("transport_error", "the helper is not the enrolled shell's child");
  }

  // A — authorize: the commit point.
  await context.hooks.beforeGuard?.(shell.paneId);
  let verdict;
  try {
    verdict = await authorize(context.tmux, shell.paneId, shell.identity.pid, interrupt);
  } catch {
    const code = interruption();
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
  const receipt: Receipt = {
    state: "authorized",
    run_id: slot.runId,
    script_digest: digest,
    server_generation: context.generation,
    pane_id: shell.paneId,
    enrollment_generation: shell.enrollmentGeneration,
    process_generation: shell.processGeneration,
  };
  await context.hooks.afterGuard?.(shell.paneId);
  if (!await isSameProcess(shell.identity)) {
    throw new RunFailure(
      "stale_target",
      "the enrolled shell is gone (it exited or the pane was respawned); a person must " +
        "enroll the pane again",
      "observed",
      receipt,
    );
  }

  // E — execute.
  await shell.sendFrame(
    {
      type: "script",
      run_id: slot.runId,
      stdout_limit: input.stdout_limit ?? DEFAULT_OUTPUT_LIMIT,
      stderr_limit: input.stderr_limit ?? DEFAULT_OUTPUT_LIMIT,
    },
    script,
  );
  markSent();
  return await during(
    "the script is running",
    () => execute({ context, shell, slot, receipt, input, interrupt, interruption }),
  );
}

type Execution = {
  context: ServerContext;
  shell: EnrolledShell;
  slot: RunSlot;
  receipt: Receipt;
  input: RunInput;
  interrupt: AbortSignal;
  interruption: () => Interruption;
};

/** Why a running script has to be stopped, and the error that will say so. */
type StopCause = {
  code: Interruption | "stale_target";
  what: string;
  /** What the agent can do instead, said after what the stop confirmed. */
  advice?: string;
  helperGone?: boolean;
};

/**
 * Waits for the script's outcome while watching the shell and the tmux server. Every way a run
 * cannot finish (deadline, cancel, shutdown, the shell or tmux server gone, the helper gone)
 * stops the script's whole process group and says what the stop confirmed.
 */
async function execute(run: Execution): Promise<ToolPayload> {
  const { slot, shell } = run;
  const watch = watchTarget(shell);
  const stopNow = AbortSignal.any([run.interrupt, watch.signal]);
  let group: number | null = null;
  try {
    while (true) {
      let event: RunEvent;
      try {
        event = await slot.events.next(stopNow);
      } catch {
        const cause: StopCause = watch.signal.aborted
          ? { code: "stale_target", what: watch.signal.reason }
          : interruptionCause(run.interruption(), run.context.config.runTimeoutSeconds);
        return await stopAndReport(run, group, cause);
      }
      if (event.kind === "gone") {
        return await stopAndReport(run, group, departureCause(event.cause));
      }
      if (event.kind !== "helper") continue;
      if (event.message.type === "started") {
        group = event.message.pid;
        continue;
      }
      return outcome(run, event.message, event.body);
    }
  } finally {
    watch.stop();
  }
}

function interruptionCause(code: Interruption, deadlineSeconds: number): StopCause {
  if (code === "deadline") {
    return {
      code,
      what: `the script ran past the run deadline (${deadlineSeconds} s)`,
      advice: "for longer work (the deadline is limits.run_deadline_seconds in " +
        "tmux_capabilities) start it in the background with its output redirected to a " +
        "file (nohup cmd >file 2>&1 &) and read the file in later runs",
    };
  }
  if (code === "cancelled") return { code, what: "the run was cancelled" };
  return { code, what: "the server is shutting down" };
}

function departureCause(cause: Departure): StopCause {
  return cause === "helper"
    ? { code: "closed", what: "the helper's channel closed during the run", helperGone: true }
    : { code: "stale_target", what: "the enrolled shell's channel closed during the run" };
}

/** The tool result for a message from the helper that ends the run. */
function outcome(run: Execution, message: HelperMessage, body: Uint8Array): ToolPayload {
  const { receipt, input } = run;
  switch (message.type) {
    case "result":
      return success({
        target: input.target,
        authorization: receipt,
        completion: message.completion,
        stdout: encodeOutput(body.subarray(0, message.stdout_bytes)),
        stderr: encodeOutput(body.subarray(message.stdout_bytes)),
      });
    case "overflow": {
      const stream = message.stream;
      const limit = (stream === "stdout" ? input.stdout_limit : input.stderr_limit) ??
        DEFAULT_OUTPUT_LIMIT;
      throw new RunFailure(
        "capacity",
        `${stream} went over ${stream}_limit (${limit} bytes), so no output is returned and ` +
          `the script was ${describeStop(message.stop)}. Raise ${stream}_limit (up to ` +
          "262144), or write the output to a file and read its tail (tail -c 60000 FILE)",
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
    default:
      throw new RunFailure(
        "transport_error",
        "the helper refused or garbled the script",
        "possibly_sent",
        receipt,
      );
  }
}

/**
 * Stops the script's group: the helper is asked first (it is `sh`'s parent and reaps it); if
 * it does not confirm in time, or is gone, the server signals the group itself. A result that
 * arrives meanwhile is the script having finished first, and is returned as such.
 */
async function stopAndReport(
  run: Execution,
  started: number | null,
  cause: StopCause,
): Promise<ToolPayload> {
  const { shell, slot, receipt, context } = run;
  let group = started;
  let confirmed: { stop: StopReport; completion: Completion | null } | null = null;
  if (!cause.helperGone) {
    await shell.sendFrame({ type: "cancel", run_id: slot.runId });
    const limit = AbortSignal.timeout(STOP_CONFIRM_MS);
    while (!confirmed) {
      const event = await slot.events.next(limit).catch(() => null);
      if (!event || event.kind === "gone") break;
      if (event.kind !== "helper") continue;
      const message = event.message;
      if (message.type === "started") group = message.pid;
      else if (message.type === "cancelled") confirmed = message;
      else return outcome(run, message, event.body);
    }
  }
  let stopped: string;
  if (confirmed) stopped = `the script was ${describeStop(confirmed.stop)}`;
  else {
    // The helper is gone or did not answer: its link is in doubt, and the group is ours to stop.
    shell.discard("helper");
    stopped = group === null
      ? "the helper never reported the script as started"
      : `the script was ${describeStop(await stopGroup(group, Promise.resolve()))}`;
  }
  const failure = new RunFailure(
    cause.code,
    [cause.what, stopped, cause.advice].filter(Boolean).join("; "),
    "possibly_sent",
    receipt,
    confirmed?.completion ?? null,
  );
  if (cause.code === "cancelled") context.reportCancelled(failurePayload(failure));
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

/**
 * Reports progress while a step waits, when the client asked for it: once when the step
 * starts, then every second, with a count that keeps rising across steps.
 */
function progressReporter(progress: ToolExtra["progress"]) {
  let count = 0;
  return async <T>(message: string, step: () => Promise<T>): Promise<T> => {
    if (!progress) return await step();
    progress(++count, message);
    const timer = setInterval(() => progress(++count, message), PROGRESS_INTERVAL_MS);
    try {
      return await step();
    } finally {
      clearInterval(timer);
    }
  };
}

/** Waits for the shell's answer to a request; an interruption withdraws the request. */
async function awaitShell(
  slot: RunSlot,
  interrupt: AbortSignal,
  interruption: () => Interruption,
): Promise<RunEvent> {
  try {
    return await slot.events.next(interrupt);
  } catch {
    const code = interruption();
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
