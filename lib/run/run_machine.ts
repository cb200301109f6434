// One tmux_run, from a taken slot to its answer, in the order it happens: P — prepare (the
// request waits in the shell's channel until its line editor is idle; nothing is authorized,
// run_prepare.ts), A — authorize (the tmux-queue guard, the commit point: from `granted` on
// every error carries the receipt, run_authorize.ts), E — execute (the helper runs the script;
// every way it cannot finish stops the script's group and says what the stop confirmed,
// run_execute.ts), R — retire (the slot is freed, always). The run's outcome is decided here,
// once, recorded, journaled and told to the person. The events a run waits for arrive on its
// slot's queue (lib/run/run_slots.ts); the tool's gate checks (lib/tools/tmux_run.ts) come first.
import type { Completion } from "./frames.ts";
import { workingDirectory } from "../host/processes.ts";
import { RunFailure } from "./run_outcome.ts";
import { type NoticeOutcome, runNotice } from "./run_notice.ts";
import { type Outcome, runEntry } from "../journal/entries.ts";
import { success, type ToolPayload } from "../mcp/tool_payload.ts";
import { socketPath } from "../tmux/tmux.ts";
import type { Completed, Run } from "./run.ts";
import { prepare } from "./run_prepare.ts";
import { authorizeRun } from "./run_authorize.ts";
import { execute } from "./run_execute.ts";

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

// R — retire: whatever happened, the shell's slot and the server's count are freed.

function retire(run: Run): void {
  run.slots.free(run.shell, run.slot);
}
