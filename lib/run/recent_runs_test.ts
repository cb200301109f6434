// The last runs' outcomes that tmux_capabilities lists: newest first, bounded, each settled with
// its completion or failure, never the script's text or output.
import assert from "node:assert/strict";
import type { Completion } from "./frames.ts";
import { RecentRuns } from "./recent_runs.ts";
import { RunFailure } from "./run_outcome.ts";

function start(n: number) {
  return {
    runId: n.toString(16).padStart(32, "0"),
    paneId: `%${n}`,
    scriptSha256: "a".repeat(64),
    scriptBytes: n,
    startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
  };
}

Deno.test("a run is listed as running until it is settled", () => {
  const recent = new RecentRuns();
  recent.begin(start(1));
  assert.deepEqual(recent.list(), [{
    run_id: "00000000000000000000000000000001",
    pane_id: "%1",
    script_sha256: "a".repeat(64),
    script_bytes: 1,
    started_at: "2026-01-01T00:00:01.000Z",
    outcome: "running",
    completion: { state: "unobserved" },
  }]);
});

Deno.test("a completed run keeps its completion", () => {
  const recent = new RecentRuns();
  recent.begin(start(1)).completed({ state: "signaled", exit_status: null, signal: 9 });
  const [run] = recent.list();
  assert.equal(run.outcome, "completed");
  assert.deepEqual(run.completion, { state: "signaled", exit_status: null, signal: 9 });
  assert.equal(run.error, undefined);
});

Deno.test("a failed run keeps its code, stop sentence, delivery and any completion", () => {
  const recent = new RecentRuns();
  const completion: Completion = { state: "exited", exit_status: 0, signal: null };
  recent.begin(start(1)).failed(
    new RunFailure({
      code: "deadline",
      message: "the script ran long; it was stopped",
      delivery: "possibly_sent",
      receipt: null,
    }),
  );
  recent.begin(start(2)).failed(
    new RunFailure({
      code: "deadline",
      message: "sh exited 0",
      delivery: "observed",
      receipt: null,
      completion,
    }),
  );
  const [observed, stopped] = recent.list();
  assert.equal(stopped.outcome, "failed");
  assert.deepEqual(stopped.error, {
    code: "deadline",
    message: "the script ran long; it was stopped",
    delivery: "possibly_sent",
  });
  assert.deepEqual(stopped.completion, { state: "unobserved" });
  assert.deepEqual(observed.completion, completion);
});

Deno.test("an error outside tmux_run's vocabulary is an unknown outcome", () => {
  const recent = new RecentRuns();
  recent.begin(start(1)).failed(new Error("socket closed"));
  const [run] = recent.list();
  assert.equal(run.outcome, "unknown");
  assert.equal(run.error, undefined);
});

Deno.test("only the newest runs are kept, newest first, and an evicted run settles harmlessly", () => {
  const recent = new RecentRuns(3);
  const first = recent.begin(start(1));
  for (const n of [2, 3, 4, 5]) recent.begin(start(n));
  first.completed({ state: "exited", exit_status: 0, signal: null });
  assert.deepEqual(recent.list().map((run) => run.pane_id), ["%5", "%4", "%3"]);
  assert.ok(recent.list().every((run) => run.outcome === "running"));
});

Deno.test("the list is a copy: changing it changes nothing kept", () => {
  const recent = new RecentRuns();
  recent.begin(start(1));
  recent.list()[0].outcome = "completed";
  assert.equal(recent.list()[0].outcome, "running");
});
