// P — prepare, a run's first phase: the request waits in the shell's channel until its line
// editor is idle and empty, and the helper answers ready. Nothing is authorized yet, so every
// failure here says nothing was sent.
import { randomHex } from "../util/ids.ts";
import { isSameProcess } from "../host/processes.ts";
import { RunFailure } from "./run_outcome.ts";
import type { RunEvent } from "./run_slots.ts";
import { CONTESTED, CONTESTED_ADVICE, type Run, SHELL_GONE } from "./run.ts";

/** Sends the request and waits for the helper's `ready`, which names the helper's pid. */
export async function prepare(run: Run): Promise<{ digest: string; helperPid: number }> {
  const { shell, slot, digest } = run;
  if (!await isSameProcess(shell.identity)) {
    shell.discard();
    throw new RunFailure({ code: "stale_target", message: SHELL_GONE });
  }
  const token = randomHex();
  await shell.sendLine(`R ${slot.runId} ${token} ${digest}`);

  // The request waits in the shell's channel until ZLE is idle; a busy shell just doesn't answer.
  const ready = await run.during(
    "waiting for the shell to be idle at its prompt",
    () => awaitShell(run),
  );
  if (ready.kind === "busy") {
    throw new RunFailure({
      code: "unsupported",
      message:
        "the pane's line editor is not idle and empty (someone is typing, or a continuation " +
        "prompt, a search, a completion question, a half-typed key sequence or a vi operator " +
        "is open); nothing was sent. This is transient: call again once the person's line is " +
        "empty",
    });
  }
  if (ready.kind === "gone" && ready.cause === "contested") {
    throw new RunFailure({
      code: "transport_error",
      message: `${CONTESTED}; nothing was sent. ${CONTESTED_ADVICE}`,
    });
  }
  if (ready.kind === "gone") throw new RunFailure({ code: "stale_target", message: SHELL_GONE });
  if (ready.kind !== "ready" || ready.token !== token || ready.digest !== digest) {
    throw new RunFailure({
      code: "transport_error",
      message: "the helper's answer did not match the request",
    });
  }
  return { digest, helperPid: ready.helperPid };
}

/** Waits for the shell's answer to a request; an interruption withdraws the request. */
async function awaitShell(run: Run): Promise<RunEvent> {
  try {
    return await run.slot.events.next(run.interrupt);
  } catch {
    const code = run.interruption();
    throw new RunFailure({
      code,
      message: code === "deadline"
        ? "the pane's shell stayed busy (a command in the foreground) until the run " +
          "deadline; nothing was sent and the request is withdrawn. Call again once its " +
          "prompt is back"
        : code === "cancelled"
        ? "the request was cancelled before anything was sent"
        : "the server is shutting down; nothing was sent",
    });
  }
}
