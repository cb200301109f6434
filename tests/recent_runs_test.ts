// A run's outcome can be read back from tmux_capabilities' recent_runs, even when its call got
// no answer (cancelled) or gave up (the run deadline): real tmux, a real enrolled zsh, a real
// cancel and a real deadline. Only facts about the runs are listed, never script or output.
import assert from "node:assert/strict";
import { enrolled, type Session, waitFor } from "./harness.ts";
import { sha256Hex } from "../lib/util/ids.ts";

const digest = (script: string) => sha256Hex(new TextEncoder().encode(script));

// deno-lint-ignore no-explicit-any
async function recentRuns(s: Session): Promise<any[]> {
  const capabilities = await s.call("tmux_capabilities");
  assert.equal(capabilities.ok, true);
  return capabilities.data.recent_runs;
}

Deno.test(
  "a cancelled run and a run past the deadline are read back, newest first, with their codes",
  enrolled(async (lab, s) => {
    const pidFile = `${lab.dir}/sh.pid`;
    const cancelledScript = `echo $$ > '${pidFile}'; while :; do :; done`;
    const abort = new AbortController();
    const pending = s.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation: s.generation },
      script: cancelledScript,
    }, abort.signal);
    pending.catch(() => {});
    await waitFor("the script to start", () => Deno.readTextFile(pidFile).catch(() => ""));
    abort.abort();
    await assert.rejects(pending);
    const [cancelled] = await waitFor("the cancelled run to settle", async () => {
      const runs = await recentRuns(s);
      return runs.length > 0 && runs[0].outcome !== "running" && runs;
    });
    assert.equal(cancelled.outcome, "failed");
    assert.equal(cancelled.error.code, "cancelled");
    assert.equal(cancelled.error.delivery, "possibly_sent");
    assert.match(cancelled.error.message, /^the run was cancelled; the script was /);

    const lateScript = "while :; do :; done";
    const late = await s.run(lateScript);
    assert.equal(late.error.code, "deadline");
    const runs = await recentRuns(s);
    assert.equal(runs.length, 2);
    const [timedOut, first] = runs;
    assert.deepEqual(first, cancelled);
    assert.equal(timedOut.run_id, late.error.effects.authorization.run_id);
    assert.equal(timedOut.pane_id, lab.pane);
    assert.equal(timedOut.script_sha256, await digest(lateScript));
    assert.equal(timedOut.outcome, "failed");
    assert.deepEqual(timedOut.error, {
      code: "deadline",
      message: late.error.message,
      delivery: "possibly_sent",
    });
    assert.match(timedOut.error.message, /run deadline \(4 s\); the script was /);
    assert.equal(cancelled.script_sha256, await digest(cancelledScript));
    assert.ok(Date.parse(timedOut.started_at) >= Date.parse(cancelled.started_at));
  }, ["--run-timeout", "4"]),
);

Deno.test(
  "a completed run is listed with its exit status, digest and size, never its text or output",
  enrolled(async (lab, s) => {
    const script = "printf secret-output; printf secret-error >&2; exit 3";
    const result = await s.run(script);
    assert.equal(result.data.stdout.data, "secret-output");
    const capabilities = await s.call("tmux_capabilities");
    const [run] = capabilities.data.recent_runs;
    assert.deepEqual(run, {
      run_id: result.data.authorization.run_id,
      pane_id: lab.pane,
      script_sha256: await digest(script),
      script_bytes: script.length,
      started_at: run.started_at,
      outcome: "completed",
      completion: { state: "exited", exit_status: 3, signal: null },
    });
    assert.ok(!Number.isNaN(Date.parse(run.started_at)));
    assert.doesNotMatch(JSON.stringify(capabilities), /secret|printf/);
  }),
);
