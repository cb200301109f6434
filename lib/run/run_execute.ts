// E — execute, a run's third phase: the script was sent, and what ends it is the helper's
// outcome or a stop. Every way a run cannot finish (deadline, cancel, shutdown, the shell or tmux
// server gone, the helper gone) stops the script's whole process group and says what the stop
// confirmed.
import type { Completion, HelperMessage, RefusalReason, StopReport } from "./frames.ts";
import { isSameProcess } from "../host/processes.ts";
import { describeHalt, describeStop, stopGroup } from "./process_group.ts";
import { failurePayload, type Receipt, RunFailure } from "./run_outcome.ts";
import { encodeOutput } from "./output_encoding.ts";
import { MAX_OUTPUT_LIMIT } from "./contract.ts";
import type { Departure, EnrolledShell, RunEvent } from "./run_slots.ts";
import { type Completed, CONTESTED, CONTESTED_ADVICE, type Interruption, type Run } from "./run.ts";

/**
 * How long a stopped run waits for the helper to confirm the stop (its own TERM then KILL takes
 * at most two grace periods of 0.5 s) before the server stops the group itself.
 */
const STOP_CONFIRM_MS = 1500;
/** How often a running script's shell and tmux server are looked up while it runs. */
const WATCH_INTERVAL_MS = 200;
/** While the caller hears progress, how often the helper is asked how much the script wrote. */
const COUNT_INTERVAL_MS = 1000;

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
export async function execute(run: Run, receipt: Receipt): Promise<Completed> {
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
      const ended = outcome(run, receipt, event.message, event.body);
      if (ended instanceof RunFailure) throw ended;
      return ended;
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

/**
 * What a message from the helper that ends the run makes of it: completed, or the failure to
 * throw (its caller throws it, so each case here only says what the message means).
 */
function outcome(
  run: Run,
  receipt: Receipt,
  message: HelperMessage,
  body: Uint8Array,
): Completed | RunFailure {
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
      return new RunFailure({
        code: "capacity",
        message:
          `${stream} went over ${stream}_limit (${limit} bytes), so no output is returned and ` +
          `the script was ${describeStop(message.stop)}. Raise ${stream}_limit (up to ` +
          `${MAX_OUTPUT_LIMIT}), or write the output to a file and read its tail (tail -c 60000 ` +
          "FILE)",
        delivery: "possibly_sent",
        receipt,
      });
    }
    case "drain_timeout": {
      const exit = message.completion.state === "exited"
        ? `sh exited ${message.completion.exit_status}`
        : `sh was killed by signal ${message.completion.signal}`;
      return new RunFailure({
        code: "deadline",
        message: `${exit}, but a background process kept ${message.open.join(" and ")} open past ` +
          "0.25 s, so no output is returned; redirect background output (e.g. " +
          "`cmd >/dev/null 2>&1 &`)",
        delivery: "observed",
        receipt,
        completion: message.completion,
      });
    }
    case "refused":
      return helperRefusal(message.reason, receipt);
    default:
      return new RunFailure({
        code: "transport_error",
        message: "the helper answered the script out of turn",
        delivery: "possibly_sent",
        receipt,
      });
  }
}

/**
 * The helper ran nothing. When `sh` could not start the helper knows that first-hand (its child
 * failed before exec, or no child was made), so the run is `not_sent` although it was
 * authorized; a refusal of the script as sent stays the contract's transport_error.
 */
function helperRefusal(reason: RefusalReason, receipt: Receipt): RunFailure {
  switch (reason) {
    case "directory":
      return new RunFailure({
        code: "unsupported",
        message: "the shell's current directory could not be entered (it was removed, or its " +
          "permissions changed), so nothing ran. The pane's shell has to cd to an existing " +
          "directory first (a person, or send_keys), then call again",
        delivery: "not_sent",
        receipt,
      });
    case "resources":
      return new RunFailure({
        code: "capacity",
        message:
          "the system refused the helper a new process, pipe or memory for the script (a limit " +
          "such as ulimit -u or a cgroup's pids.max was reached), so nothing ran. Call again " +
          "once processes have ended or the limit is raised",
        delivery: "not_sent",
        receipt,
      });
    case "start":
      return new RunFailure({
        code: "unsupported",
        message: "/bin/sh could not be started for the script, so nothing ran",
        delivery: "not_sent",
        receipt,
      });
    case "leaving":
      return new RunFailure({
        code: "closed",
        message: "the helper is shutting down, so nothing ran",
        delivery: "not_sent",
        receipt,
      });
    default:
      return new RunFailure({
        code: "transport_error",
        message:
          `the helper refused the script as it arrived (${AS_SENT[reason]}), so nothing ran by ` +
          "its account",
        delivery: "possibly_sent",
        receipt,
      });
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
      else {
        const ended = outcome(run, receipt, message, event.body);
        if (ended instanceof RunFailure) throw ended;
        return ended;
      }
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
  const failure = new RunFailure({
    code: cause.code,
    message: [what, stopped, advice].filter(Boolean).join("; "),
    delivery: "possibly_sent",
    receipt,
    completion: confirmed?.completion ?? null,
  });
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
