// A — authorize, a run's commit point: the helper is proven the shell's child, and the
// tmux-queue guard (lib/run/guard.ts) grants the run in one tmux command; from `granted` on
// every error carries the receipt.
import { authorize } from "./guard.ts";
import { isSameProcess, readIdentity } from "../host/processes.ts";
import { type Receipt, RunFailure } from "./run_outcome.ts";
import { type Run, SHELL_GONE } from "./run.ts";
import { serverLabel, TMUX_ANSWER_SECONDS, TmuxNotAnswering } from "../tmux/tmux.ts";

/** The guard's grant as a receipt, once the helper proved to be the enrolled shell's child. */
export async function authorizeRun(run: Run, digest: string, helperPid: number): Promise<Receipt> {
  const { server, shell } = run;
  const [helper, shellSame] = await Promise.all([
    readIdentity(helperPid),
    isSameProcess(shell.identity),
  ]);
  if (!helper || helper.parentPid !== shell.identity.pid || !shellSame) {
    throw new RunFailure({
      code: "transport_error",
      message: "the helper is not the enrolled shell's child",
    });
  }
  await server.hooks.beforeGuard?.(shell.paneId);
  let verdict;
  try {
    verdict = await authorize(server.tmux, shell.paneId, shell.identity.pid, run.interrupt);
  } catch (error) {
    if (error instanceof TmuxNotAnswering) {
      throw new RunFailure({
        code: "deadline",
        message: `${serverLabel(server.tmux)} did not answer the authorization within ` +
          `${TMUX_ANSWER_SECONDS} s, so the run was abandoned before its script was sent. It may ` +
          "be stopped (SIGSTOP, a debugger) or overloaded: check it with tmux list-sessions, " +
          "then call again",
        delivery: "possibly_sent",
      });
    }
    const code = run.interruption();
    throw new RunFailure({
      code,
      message: `the authorization was interrupted (${code})`,
      delivery: "possibly_sent",
    });
  }
  if (verdict === "aliased") {
    throw new RunFailure({
      code: "unsupported",
      message:
        "a tmux command-alias rebinds if-shell or display-message, which the guard relies on; " +
        "nothing was sent. Remove that alias (show-options -s command-alias) to use tmux_run",
    });
  }
  if (verdict === "denied") {
    throw new RunFailure({
      code: "stale_target",
      message:
        "the pane was replaced, died or is gone; nothing was sent. Check tmux_capabilities " +
        "enrolled_panes",
    });
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
    throw new RunFailure({
      code: "stale_target",
      message: SHELL_GONE,
      delivery: "observed",
      receipt,
    });
  }
  return receipt;
}
