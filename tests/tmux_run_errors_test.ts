// The error table of tmux_run, each row caused for real: a wrong generation, a pane that is not
// enrolled, a person's half-typed line, a PS2 continuation, a second run on a busy slot, an
// overflow, a respawn before the guard, a cancel after it, and a shell busy past the deadline.
import assert from "node:assert/strict";
import {
  assertValidRunResult,
  ENROLL,
  enrolled,
  type Lab,
  processExists,
  typeInto,
  waitFor,
  waitForPrompt,
  waitUntilRunning,
  withLab,
  withServer,
  zshCommand,
} from "./harness.ts";
import { openPidsLimit, pidsLimitAvailable } from "./pids_limit.ts";

function assertNotSent(result: { ok: boolean; error: Record<string, unknown> }, code: string) {
  assert.equal(result.ok, false);
  assert.equal(result.error.code, code, JSON.stringify(result));
  assert.equal(result.error.delivery, "not_sent");
  assert.deepEqual(result.error.effects, {
    state: "none",
    authorization: null,
    completion: { state: "unobserved" },
  });
}

/** Authorized, then refused by the helper before `sh` could start: nothing ran. */
function assertAuthorizedNotRun(
  result: { ok: boolean; error: Record<string, unknown> },
  code: string,
) {
  assert.equal(result.ok, false);
  assert.equal(result.error.code, code, JSON.stringify(result));
  assert.equal(result.error.delivery, "not_sent");
  const effects = result.error.effects as {
    state: string;
    authorization: { state: string };
    completion: unknown;
  };
  assert.equal(effects.state, "known");
  assert.equal(effects.authorization.state, "authorized");
  assert.deepEqual(effects.completion, { state: "unobserved" });
}

async function screen(lab: Lab): Promise<string> {
  return await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
}

Deno.test("tmux_run is absent unless enabled by name, and refused when called anyway", () =>
  withLab((lab) =>
    withServer(lab, [], async (s) => {
      const { tools } = await s.client.listTools();
      assert.ok(!tools.some((tool: { name: string }) => tool.name === "tmux_run"));
      const result = await s.call("tmux_run", {
        target: { kind: "pane", id: "%0", generation: "x" },
        script: "true",
      });
      assert.deepEqual(result.error, {
        code: "policy_denied",
        message: result.error.message,
        delivery: "not_sent",
      });
    })
  ));

Deno.test(
  "a wrong generation is stale_target and nothing is sent",
  enrolled(async (lab, s) => {
    const result = await s.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation: "0".repeat(32) },
      script: "touch should-not-exist",
    });
    assertNotSent(result, "stale_target");
  }),
);

Deno.test("a pane that is not enrolled is unsupported", () =>
  withLab((lab) =>
    withServer(lab, ENROLL, async (s) => {
      const result = await s.run("true");
      assertNotSent(result, "unsupported");
    })
  ));

Deno.test(
  "a half-typed line is refused and stays on screen",
  enrolled(async (lab, s) => {
    await typeInto(lab, "echo half typed");
    await waitFor("the typed text", async () => (await screen(lab)).includes("echo half typed"));
    const result = await s.run("echo ran");
    assertNotSent(result, "unsupported");
    const lines = (await screen(lab)).split("\n").filter((line) => line !== "");
    assert.equal(lines.at(-1), "lab# echo half typed");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-u");
    const after = await s.run("echo ran");
    assert.equal(after.data.stdout.data, "ran\n");
  }),
);

Deno.test(
  "a PS2 continuation prompt is refused",
  enrolled(async (lab, s) => {
    await typeInto(lab, 'echo "open quote', true);
    await waitFor("the continuation prompt", async () => (await screen(lab)).includes("dquote>"));
    const result = await s.run("true");
    assertNotSent(result, "unsupported");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await waitForPrompt(lab);
  }),
);

Deno.test(
  "a second run on the same shell fails fast with capacity",
  enrolled(async (lab, s) => {
    const first = s.run(`while [ ! -e '${lab.dir}/release' ]; do sleep 0.05; done; echo first`);
    await waitFor(
      "the first run to hold the slot",
      () => s.server.context.enrollments?.shells.get(lab.pane)?.run,
    );
    const second = await s.run("echo second");
    assertNotSent(second, "capacity");
    await Deno.writeTextFile(`${lab.dir}/release`, "");
    assert.equal((await first).data.stdout.data, "first\n");
  }),
);

Deno.test(
  "an overflow refuses completion and leaks no output into the error",
  enrolled(async (_lab, s) => {
    const result = await s.run(
      "i=0; while [ $i -lt 50 ]; do echo SECRET-MARKER-42; i=$((i+1)); done",
      {
        stdout_limit: 100,
      },
    );
    assert.equal(result.ok, false);
    assert.equal(result.error.code, "capacity");
    assert.equal(result.error.delivery, "possibly_sent");
    assert.equal(result.error.effects.state, "known");
    assert.equal(result.error.effects.authorization.state, "authorized");
    assert.deepEqual(result.error.effects.completion, { state: "unobserved" });
    assert.ok(!JSON.stringify(result).includes("SECRET-MARKER"));
    const zero = await s.run("echo x >&2", { stderr_limit: 0 });
    assert.equal(zero.error.code, "capacity");
    const next = await s.run("echo fine");
    assert.equal(next.data.stdout.data, "fine\n");
  }),
);

Deno.test(
  "a response budget too small for the limits is refused before anything is sent",
  enrolled(async (_lab, s) => {
    const result = await s.run("true", { stdout_limit: 262144, stderr_limit: 262144 });
    assertNotSent(result, "capacity");
  }, ["--max-response-bytes", "1000000"]),
);

Deno.test(
  "a respawn before the guard is stale_target and nothing is sent",
  enrolled(
    async (lab, s) => {
      const result = await s.run(`touch '${lab.dir}/ran'`);
      assertNotSent(result, "stale_target");
      await assert.rejects(Deno.lstat(`${lab.dir}/ran`));
    },
    [],
    (lab) => ({
      beforeGuard: async (pane) => {
        await lab.tmuxCmd("respawn-pane", "-k", "-t", pane, "--", ...zshCommand(lab.dir));
      },
    }),
  ),
);

Deno.test(
  "a cancel after the grant stops sh, reports the receipt, and the next run works",
  enrolled(async (lab, s) => {
    const outcomes: unknown[] = [];
    s.client.setNotificationHandler(
      "notifications/message",
      (note) => {
        outcomes.push(note.params.data);
      },
    );
    const pidFile = `${lab.dir}/sh.pid`;
    const abort = new AbortController();
    const pending = s.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation: s.generation },
      script: `echo $$ > '${pidFile}'; while :; do :; done`,
    }, abort.signal);
    pending.catch(() => {});
    const pid = Number(
      await waitFor("the script to start", () => Deno.readTextFile(pidFile).catch(() => "")),
    );
    assert.ok(await processExists(pid));
    abort.abort();
    await assert.rejects(pending);
    // deno-lint-ignore no-explicit-any
    const outcome = await waitFor("the cancelled outcome", () => outcomes[0]) as any;
    assertValidRunResult(outcome);
    assert.equal(outcome.error.code, "cancelled");
    assert.equal(outcome.error.delivery, "possibly_sent");
    assert.equal(outcome.error.effects.state, "known");
    assert.equal(outcome.error.effects.authorization.pane_id, lab.pane);
    assert.equal(await processExists(pid), false);
    const next = await s.run("echo after");
    assert.equal(next.data.stdout.data, "after\n");
  }),
);

Deno.test(
  "a busy shell runs the request once it is idle",
  enrolled(async (lab, s) => {
    await typeInto(lab, `sleep 1; touch '${lab.dir}/busy-done'`, true);
    await waitUntilRunning(lab, "sleep");
    const result = await s.run(`test -e '${lab.dir}/busy-done'`);
    assert.deepEqual(result.data.completion, { state: "exited", exit_status: 0, signal: null });
  }),
);

Deno.test(
  "a shell busy past the deadline gets deadline, and the stale request never runs",
  enrolled(async (lab, s) => {
    await typeInto(lab, "sleep 2", true);
    await waitUntilRunning(lab, "sleep");
    const result = await s.run(`touch '${lab.dir}/stale'`);
    assertNotSent(result, "deadline");
    await waitForPrompt(lab);
    const next = await s.run("echo later");
    assert.equal(next.data.stdout.data, "later\n");
    await assert.rejects(Deno.lstat(`${lab.dir}/stale`));
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a shell killed right after the guard is stale_target, observed, with the receipt",
  enrolled(
    async (lab, s) => {
      const result = await s.run(`touch '${lab.dir}/ran'`);
      assert.equal(result.error.code, "stale_target");
      assert.equal(result.error.delivery, "observed");
      assert.equal(result.error.effects.state, "known");
      assert.equal(result.error.effects.authorization.pane_id, lab.pane);
      await assert.rejects(Deno.lstat(`${lab.dir}/ran`));
    },
    [],
    (lab) => ({
      afterGuard: async (pane) => {
        const pid = Number(await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{pane_pid}"));
        Deno.kill(pid, "SIGKILL");
        await waitFor("the shell to die", async () => !await processExists(pid));
      },
    }),
  ),
);

Deno.test(
  "a command-alias that rebinds the guard's commands makes tmux_run refuse",
  enrolled(async (lab, s) => {
    await lab.tmuxCmd("set-option", "-s", "command-alias[100]", "if-shell=display-message -p x");
    const result = await s.run(`touch '${lab.dir}/ran'`);
    assertNotSent(result, "unsupported");
    await assert.rejects(Deno.lstat(`${lab.dir}/ran`));
    await lab.tmuxCmd("set-option", "-su", "command-alias[100]");
    const next = await s.run("echo fine");
    assert.equal(next.data.stdout.data, "fine\n");
  }),
);

Deno.test(
  "scripts over 65536 UTF-8 bytes, with NUL or a lone surrogate are invalid_input, without effects",
  enrolled(async (_lab, s) => {
    for (const script of ["é".repeat(32769), "echo a\u0000b", "echo \ud800"]) {
      const result = await s.run(script);
      assert.equal(result.error.code, "invalid_input");
      assert.equal(result.error.delivery, "not_sent");
      assert.equal(result.error.effects, undefined);
    }
    const fits = await s.run(`: '${"é".repeat(32760)}'`);
    assert.equal(fits.ok, true);
  }),
);

Deno.test(
  "a background process holding the output open ends the run with deadline and the completion",
  enrolled(async (lab, s) => {
    const pidFile = `${lab.dir}/bg.pid`;
    const result = await s.run(`sleep 30 & echo $! > '${pidFile}'; exit 0`);
    try {
      assert.equal(result.error.code, "deadline");
      assert.equal(result.error.delivery, "observed");
      assert.deepEqual(result.error.effects.completion, {
        state: "exited",
        exit_status: 0,
        signal: null,
      });
      assert.equal(result.error.effects.authorization.state, "authorized");
      assert.match(result.error.message, /^sh exited 0, but a background process kept stdout/);
      assert.match(result.error.message, /redirect background output/);
      assert.ok(await processExists(Number(await Deno.readTextFile(pidFile))));
    } finally {
      Deno.kill(Number(await Deno.readTextFile(pidFile)), "SIGKILL");
    }
  }),
);

Deno.test(
  "an incremental search showing a match is refused and left open",
  enrolled(async (lab, s) => {
    await typeInto(lab, "echo findme", true);
    await waitForPrompt(lab);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-r");
    await typeInto(lab, "findme");
    await waitFor("the search match", async () => /bck-i-search: findme/.test(await screen(lab)));
    const result = await s.run(`touch '${lab.dir}/ran'`);
    assertNotSent(result, "unsupported");
    assert.match(await screen(lab), /bck-i-search: findme/);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-g");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-u");
    await waitForPrompt(lab);
  }),
);

Deno.test(
  "a shell whose directory was removed gets unsupported, not_sent, and nothing runs",
  enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const gone = `${lab.dir}/gone`;
    await typeInto(lab, `mkdir '${gone}' && cd '${gone}' && rmdir '${gone}'`, true);
    await waitFor(
      "the shell's directory to be removed",
      async () => (await Deno.readLink(`/proc/${shell.identity.pid}/cwd`)).endsWith(" (deleted)"),
    );
    await waitForPrompt(lab);
    const result = await s.run(`touch '${lab.dir}/ran'`);
    assertAuthorizedNotRun(result, "unsupported");
    assert.match(result.error.message, /^the shell's current directory could not be entered/);
    assert.match(result.error.message, /cd to an existing directory/);
    await assert.rejects(Deno.lstat(`${lab.dir}/ran`));
    await typeInto(lab, `cd '${lab.dir}'`, true);
    await waitFor(
      "the shell to leave the removed directory",
      async () =>
        await Deno.readLink(`/proc/${shell.identity.pid}/cwd`) === await Deno.realPath(lab.dir),
    );
    await waitForPrompt(lab);
    const next = await s.run("echo fine");
    assert.equal(next.data.stdout.data, "fine\n");
  }),
);

const PIDS_LIMIT = await pidsLimitAvailable();

Deno.test({
  name: "a helper the system refuses a process gets capacity, not_sent, and the next run works" +
    (PIDS_LIMIT ? "" : " (skipped: no writable pids cgroup, and ulimit -u does not bind root)"),
  ignore: !PIDS_LIMIT,
  fn: enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const limit = await openPidsLimit(`tmux-mcp-errors-test-${shell.helperPid}`);
    assert.ok(limit);
    try {
      await limit.holdHelper(shell.helperPid);
      const result = await s.run(`touch '${lab.dir}/ran'`);
      assertAuthorizedNotRun(result, "capacity");
      assert.match(result.error.message, /refused the helper a new process/);
      await assert.rejects(Deno.lstat(`${lab.dir}/ran`));
    } finally {
      await limit.close();
    }
    const next = await s.run("echo fine");
    assert.equal(next.data.stdout.data, "fine\n");
  }),
});
