// tmux_run: an authored script, run by an enrolled zsh's helper, with native completion. The
// phases read in order — prepare (nothing authorized), authorize (the tmux-queue guard, the
// commit point), execute, retire (always) — and every failure is a RunFailure that says what
// is known; run_outcome.ts turns it into `{code, delivery, effects}`.
import type { EnrolledShell, RunEvent, RunSlot } from "../enrollment.ts";
import { EventQueue } from "../enrollment.ts";
import type { Completion } from "../frames.ts";
import { authorize } from "../guard.ts";
import { randomHex, sha256Hex } from "../ids.ts";
import { isSameProcess, readIdentity } from "../procfs.ts";
import { failurePayload, type Receipt, RunFailure } from "../run_outcome.ts";
import { schemas } from "../schemas.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "../server_context.ts";
import { success, type ToolPayload } from "../tool_result.ts";
import { encodeOutput } from "../output_encoding.ts";
import {
  DEFAULT_OUTPUT_LIMIT,
  MAX_CONCURRENT_RUNS,
  MAX_OUTPUT_LIMIT,
  MAX_SCRIPT_BYTES,
} from "./toolkit.ts";
/** How long a cancelled or timed-out run waits for the helper to confirm the kill. */
const STOP_CONFIRM_MS = 3000;
const PROGRESS_INTERVAL_MS = 1000;

type RunInput = {
  target: { kind: "pane"; id: string; generation: string };
  script: string;
  stdout_limit?: number;
  stderr_limit?: number;
};

type Interruption = "deadline" | "cancelled";

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
  const interrupt = AbortSignal.any([extra.signal, deadline]);
  const interruption = (): Interruption => extra.signal.aborted ? "cancelled" : "deadline";
  try {
    const during = progressReporter(extra.progress);
    return await prepareAndRun(
      context,
      shell,
      slot,
      { input, script, interrupt, interruption, during },
    );
  } finally {
    // R — retire: free both slots whatever happened.
    if (shell.run === slot) shell.run = null;
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
    () => nextEvent(slot, interrupt, interruption, null),
  );
  if (ready.kind === "busy") {
    throw new RunFailure(
      "unsupported",
      "the pane's line editor is not idle and empty (someone is typing, or a continuation " +
        "prompt or search is open); nothing was sent. This is transient: call again once the " +
        "person's line is empty",
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
  const done = await during(
    "the script is running",
    () => nextEvent(slot, interrupt, interruption, { shell, receipt, context }),
  );
  if (done.kind === "gone") {
    throw new RunFailure(
      "closed",
      "the shell's channel closed during the run",
      "possibly_sent",
      receipt,
    );
  }
  if (done.kind !== "helper") {
    throw new RunFailure(
      "transport_error",
      "unexpected message from the shell",
      "possibly_sent",
      receipt,
    );
  }
  const message = done.message;
  switch (message.type) {
    case "result": {
      const stdout = done.body.subarray(0, message.stdout_bytes);
      const stderr = done.body.subarray(message.stdout_bytes);
      return success({
        target: input.target,
        authorization: receipt,
        completion: message.completion,
        stdout: encodeOutput(stdout),
        stderr: encodeOutput(stderr),
      });
    }
    case "overflow":
      throw new RunFailure(
        "capacity",
        `the script's output went over a limit (stdout_limit ${
          input.stdout_limit ?? DEFAULT_OUTPUT_LIMIT
        } bytes or stderr_limit ${input.stderr_limit ?? DEFAULT_OUTPUT_LIMIT} bytes), so it ` +
          "was stopped and no output is returned. Raise stdout_limit or stderr_limit (up to " +
          "262144), or write the output to a file and read its tail (tail -c 60000 FILE)",
        "possibly_sent",
        receipt,
      );
    case "drain_timeout":
      throw new RunFailure(
        "deadline",
        "the script exited but a background process kept its stdout or stderr open, so no " +
          "output is returned; start background jobs with their output redirected " +
          "(cmd >file 2>&1 &)",
        "observed",
        receipt,
        message.completion,
      );
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

/**
 * Waits for the run's next event. If the wait is interrupted before the commit point the
 * request is simply withdrawn; after it, the helper is told to stop the script (TERM, then
 * KILL) and its confirmation is awaited, so the failure can say how the script ended.
 */
async function nextEvent(
  slot: RunSlot,
  interrupt: AbortSignal,
  interruption: () => Interruption,
  committed: { shell: EnrolledShell; receipt: Receipt; context: ServerContext } | null,
): Promise<RunEvent> {
  try {
    return await slot.events.next(interrupt);
  } catch {
    const code = interruption();
    if (!committed) {
      throw new RunFailure(
        code,
        code === "deadline"
          ? "the pane's shell stayed busy (a command in the foreground) until the run " +
            "deadline; nothing was sent and the request is withdrawn. Call again once its " +
            "prompt is back"
          : "the request was cancelled before anything was sent",
      );
    }
    const { shell, receipt, context } = committed;
    await shell.sendFrame({ type: "cancel", run_id: slot.runId });
    const completion = await awaitStopped(slot);
    if (completion === undefined) shell.discard();
    const failure = new RunFailure(
      code,
      code === "deadline"
        ? `the script ran past the run deadline (${committed.context.config.runTimeoutSeconds} ` +
          "s) and was stopped. For longer work start it in the background with its output " +
          "redirected to a file (nohup cmd >file 2>&1 &) and read the file in later runs"
        : "the run was cancelled and the script was stopped",
      "possibly_sent",
      receipt,
      completion ?? null,
    );
    if (code === "cancelled") context.reportCancelled(failurePayload(failure));
    throw failure;
  }
}

/** The completion the helper reports after a stop; undefined when it never confirms. */
async function awaitStopped(slot: RunSlot): Promise<Completion | null | undefined> {
  const limit = AbortSignal.timeout(STOP_CONFIRM_MS);
  try {
    while (true) {
      const event = await slot.events.next(limit);
      if (event.kind === "gone") return undefined;
      if (event.kind !== "helper") continue;
      const message = event.message;
      if (message.type === "cancelled") return message.completion;
      if (message.type === "result" || message.type === "drain_timeout") return message.completion;
      if (message.type === "overflow") return null;
    }
  } catch {
    return undefined;
  }
}
