// Long runs out of the box: a tmux_run call that carries a progress token, or runs as a task,
// gets the long deadline (--run-timeout-with-progress, 10 minutes by default) instead of
// --run-timeout, and a call with a token hears, while the script runs, the seconds elapsed and
// the bytes it has written to stdout and stderr so far (counted by the helper, which holds them).
// The servers here run with --run-timeout 1, so a run that outlives one second proves the
// long deadline was applied.
import assert from "node:assert/strict";
import {
  expectedText,
  type Lab,
  type Payload,
  type Session,
  waitFor,
  withLab,
  withServer,
} from "./harness.ts";

const FLAGS = [
  "--enable-tool",
  "tmux_run",
  "--enroll-pane",
  "%0=SETUP",
  "--run-timeout",
  "1",
  "--run-timeout-with-progress",
  "120",
];

function enrolled(fn: (lab: Lab, s: Session) => Promise<void>): () => Promise<void> {
  return () =>
    withLab((lab) =>
      withServer(lab, FLAGS.map((flag) => flag.replace("%0", lab.pane)), async (s) => {
        await s.enroll();
        await fn(lab, s);
      })
    );
}

function runArgs(lab: Lab, s: Session, script: string) {
  return { target: { kind: "pane", id: lab.pane, generation: s.generation }, script };
}

/** A script that writes 3 bytes to stdout and 2 to stderr, then waits for `go` to exist. */
function waitingScript(go: string): string {
  return `printf abc; printf de >&2; while [ ! -e '${go}' ]; do sleep 0.05; done; echo end`;
}

Deno.test(
  "with a progress token a run outlives --run-timeout, and progress says seconds and bytes",
  enrolled(async (lab, s) => {
    const go = `${lab.dir}/go`;
    const messages: string[] = [];
    const call = s.client.callTool(
      { name: "tmux_run", arguments: runArgs(lab, s, waitingScript(go)) },
      {
        onprogress: (p: { message?: string }) => messages.push(p.message ?? ""),
        timeout: 60_000,
      },
    );
    const counted =
      /^the script is running: (\d+) s elapsed; 3 bytes of stdout and 2 of stderr so far$/;
    const seen = await waitFor(
      "progress with the script's output bytes",
      () => messages.find((message) => counted.test(message)),
      30_000,
    );
    // The helper is asked once a second, so the count arrived after --run-timeout (1 s) ran out.
    assert.ok(Number(counted.exec(seen)?.[1]) >= 1, seen);
    await Deno.writeTextFile(go, "");
    const result = await call;
    const payload: Payload = result.structuredContent;
    assert.equal((result.content as { text: string }[])[0].text, expectedText("tmux_run", payload));
    assert.equal(payload.ok, true, JSON.stringify(payload));
    assert.equal(payload.data.stdout.data, "abcend\n");
    assert.equal(payload.data.stderr.data, "de");
    const elapsed = messages.map((m) => Number(/: (\d+) s elapsed/.exec(m)?.[1] ?? NaN));
    assert.ok(elapsed.every((n) => Number.isInteger(n)), messages.join("\n"));
    assert.deepEqual(elapsed, [...elapsed].sort((a, b) => a - b), "elapsed seconds never go back");
    const capabilities = await s.call("tmux_capabilities");
    assert.equal(capabilities.data.limits.run_deadline_seconds, 1);
    assert.equal(capabilities.data.limits.run_deadline_with_progress_seconds, 120);
  }),
);

Deno.test(
  "without a progress token the same run keeps --run-timeout and fails at its deadline",
  enrolled(async (lab, s) => {
    const result = await s.run(waitingScript(`${lab.dir}/never`));
    assert.equal(result.ok, false);
    assert.equal(result.error.code, "deadline");
    assert.match(result.error.message, /past the run deadline \(1 s\)/);
    assert.match(result.error.message, /progress token/);
  }),
);

Deno.test(
  "a run made as a task gets the long deadline too",
  enrolled(async (lab, s) => {
    const go = `${lab.dir}/go`;
    const started = `${lab.dir}/started`;
    const ANY = {
      "~standard": {
        version: 1 as const,
        vendor: "long-runs-test",
        validate: (value: unknown) => ({ value }),
      },
    };
    const ask = (method: string, params: Record<string, unknown>): Promise<Payload> =>
      s.client.request({ method, params }, ANY);
    const created = await ask("tools/call", {
      name: "tmux_run",
      arguments: runArgs(lab, s, `: > '${started}'; ${waitingScript(go)}`),
      task: { ttl: 120_000 },
    });
    const { taskId } = created.task;
    await waitFor("the task's script to start", () => Deno.stat(started).catch(() => null));
    // Still working once its script has run for longer than --run-timeout (1 s).
    await waitFor(
      "the script's start to be over a second old",
      async () => Date.now() - ((await Deno.stat(started)).mtime?.getTime() ?? Date.now()) > 1500,
      30_000,
    );
    assert.equal((await ask("tasks/get", { taskId })).status, "working");
    await Deno.writeTextFile(go, "");
    const result = await ask("tasks/result", { taskId });
    const payload = result.structuredContent;
    assert.equal(result.content[0].text, expectedText("tmux_run", payload));
    assert.equal(payload.ok, true, JSON.stringify(payload));
    assert.equal(payload.data.stdout.data, "abcend\n");
  }),
);
