// tmux_run under real faults: a deadline, a cancel and an overflow stop the script's whole
// process group; a kill -9 of the helper, of the zsh or of the tmux server ends the call at
// once with the receipt and stops the group; a result that finished before its shell died still
// arrives. Each test asserts what the client got and that no process of the group remains.
import assert from "node:assert/strict";
import { enrolled, type Lab, processExists, typeInto, waitFor, waitForPrompt } from "./harness.ts";
import { groupMembers, listProcesses } from "../lib/host/processes.ts";

const STOPPED = /stopped: no process of the script's group remains/;
const ESCAPEE_STOPPED =
  /; 1 process\(es\) that had left the group \(setsid or double fork\) were stopped too/;

/** The pid a script wrote to `file`, once it is there. */
async function pidIn(file: string): Promise<number> {
  const text = await waitFor(
    "the script to write its pid",
    () => Deno.readTextFile(file).then((t) => t.endsWith("\n") && t).catch(() => ""),
  );
  return Number(text);
}

/**
 * The run failed with `code` after its commit point (the receipt is there), its message says
 * the stop confirmed that no process of the group remains, and none does.
 */
async function assertGroupStopped(
  result: { ok: boolean; error: Record<string, unknown> },
  code: string,
  pgid: number,
) {
  assert.equal(result.ok, false);
  assert.equal(result.error.delivery, "possibly_sent", JSON.stringify(result));
  const effects = result.error.effects as { state: string; authorization: { state: string } };
  assert.equal(effects.state, "known");
  assert.equal(effects.authorization.state, "authorized");
  assert.equal(result.error.code, code);
  assert.match(String(result.error.message), STOPPED);
  assert.deepEqual(await groupMembers(pgid), []);
}

function script(lab: Lab, body: string): string {
  return `echo $$ > '${lab.dir}/sh.pid'; ${body}`;
}

Deno.test(
  "a deadline stops the whole group, with SIGKILL for members that ignore SIGTERM",
  enrolled(async (lab, s) => {
    const result = await s.run(script(lab, "trap '' TERM; sleep 30 & sleep 30; echo never"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    await assertGroupStopped(result, "deadline", pgid);
    const next = await s.run("echo next");
    assert.equal(next.data.stdout.data, "next\n");
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a cancel stops the script's foreground child, not only sh",
  enrolled(async (lab, s) => {
    const outcomes: { error: { code: string; message: string } }[] = [];
    s.client.setNotificationHandler(
      "notifications/message",
      (note) => void outcomes.push(note.params.data as never),
    );
    const abort = new AbortController();
    const pending = s.call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation: s.generation },
      script: script(lab, "sleep 30"),
    }, abort.signal);
    pending.catch(() => {});
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    await waitFor("sleep to start in the group", async () => (await groupMembers(pgid)).length > 1);
    abort.abort();
    const outcome = await waitFor("the cancelled outcome", () => outcomes[0]);
    assert.equal(outcome.error.code, "cancelled");
    assert.match(outcome.error.message, STOPPED);
    assert.deepEqual(await groupMembers(pgid), []);
  }),
);

Deno.test(
  "an overflow stops the group, background jobs included",
  enrolled(async (lab, s) => {
    const result = await s.run(
      script(lab, "sleep 30 & while :; do echo 0123456789; done"),
      { stdout_limit: 100 },
    );
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    await assertGroupStopped(result, "capacity", pgid);
  }),
);

/** Kills the process whose pid a script wrote to `file`, if it wrote one and it still runs. */
async function killPidIn(file: string): Promise<void> {
  const pid = Number(await Deno.readTextFile(file).catch(() => ""));
  if (pid > 1 && await processExists(pid)) Deno.kill(pid, "SIGKILL");
}

Deno.test(
  "a process that left the group (setsid) is stopped with it, and counted",
  enrolled(async (lab, s) => {
    const escapee = `${lab.dir}/escapee.pid`;
    try {
      const result = await s.run(script(lab, `setsid sleep 30 & echo $! > '${escapee}'; sleep 30`));
      const pgid = await pidIn(`${lab.dir}/sh.pid`);
      await assertGroupStopped(result, "deadline", pgid);
      assert.match(result.error.message, ESCAPEE_STOPPED);
      assert.equal(await processExists(await pidIn(escapee)), false);
    } finally {
      await killPidIn(escapee);
    }
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a double-forked escapee, whose parent is gone, is found and stopped at the deadline",
  enrolled(async (lab, s) => {
    const escapee = `${lab.dir}/escapee.pid`;
    try {
      // The subshell exits at once; the escapee has its own session and no parent of the script.
      const result = await s.run(script(
        lab,
        `(setsid sh -c 'echo $$ > "$0"; exec sleep 100' '${escapee}' &); sleep 30`,
      ));
      const pgid = await pidIn(`${lab.dir}/sh.pid`);
      await assertGroupStopped(result, "deadline", pgid);
      assert.match(result.error.message, ESCAPEE_STOPPED);
      assert.doesNotMatch(result.error.message, /cannot be found/);
      assert.equal(await processExists(await pidIn(escapee)), false);
    } finally {
      await killPidIn(escapee);
    }
  }, ["--run-timeout", "1"]),
);

const TERMINAL_WAIT =
  /^the script ran past the run deadline \(1 s\), waiting on the terminal: its group was stopped by SIGTTIN/;

Deno.test(
  "a script that reads the terminal is named at the deadline as waiting on it",
  enrolled(async (lab, s) => {
    const result = await s.run(script(lab, "read answer < /dev/tty; echo $answer"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    await assertGroupStopped(result, "deadline", pgid);
    assert.match(result.error.message, TERMINAL_WAIT);
    assert.match(result.error.message, /gets no terminal input/);
    assert.match(result.error.message, /send_keys/);
    assert.doesNotMatch(result.error.message, /nohup/);
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a program of the script that reads the terminal stops its whole group, named as such",
  enrolled(async (lab, s) => {
    // Not the last command, so sh forks it rather than becoming it.
    const result = await s.run(script(lab, "head -n 1 /dev/tty; echo read"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    await assertGroupStopped(result, "deadline", pgid);
    assert.match(result.error.message, TERMINAL_WAIT);
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a script stopped by the terminal is named from the process table when the server stops it",
  enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const pending = s.run(script(lab, "read answer < /dev/tty"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    await waitFor("sh to be stopped by the terminal", async () => {
      const rows = await listProcesses() ?? [];
      return rows.some((row) => row.pid === pgid && row.stopped);
    });
    Deno.kill(shell.helperPid, "SIGSTOP");
    try {
      const result = await pending;
      await assertGroupStopped(result, "deadline", pgid);
      assert.match(
        result.error.message,
        /, stopped, not running: 1 process\(es\) of its group were stopped \(state T; the terminal/,
      );
      assert.match(result.error.message, /send_keys/);
    } finally {
      Deno.kill(shell.helperPid, "SIGCONT");
    }
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a normal exit leaves the author's background jobs alone",
  enrolled(async (_lab, s) => {
    const result = await s.run("nohup sleep 30 >/dev/null 2>&1 & echo $!");
    const pid = Number(result.data.stdout.data);
    try {
      assert.deepEqual(result.data.completion, { state: "exited", exit_status: 0, signal: null });
      assert.ok(await processExists(pid));
    } finally {
      Deno.kill(pid, "SIGKILL");
    }
  }),
);

Deno.test(
  "kill -9 of the helper ends the call with the receipt and stops the group",
  enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const pending = s.run(script(lab, "sleep 30"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    Deno.kill(shell.helperPid, "SIGKILL");
    const result = await pending;
    assert.match(result.error.message, /helper's channel closed/);
    await assertGroupStopped(result, "closed", pgid);
    assert.equal(s.server.context.enrollments!.shells.has(lab.pane), false);
  }),
);

Deno.test(
  "kill -9 of the enrolled zsh ends the call with stale_target and stops the group",
  enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const pending = s.run(script(lab, "sleep 30"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    Deno.kill(shell.identity.pid, "SIGKILL");
    const result = await pending;
    await assertGroupStopped(result, "stale_target", pgid);
  }),
);

Deno.test(
  "killing the tmux server ends the call with stale_target and stops the group",
  enrolled(async (lab, s) => {
    const tmuxPid = Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
    const pending = s.run(script(lab, "sleep 30"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    Deno.kill(tmuxPid, "SIGKILL");
    const result = await pending;
    await assertGroupStopped(result, "stale_target", pgid);
  }),
);

Deno.test(
  "a SIGSTOPped helper cannot confirm a stop, so the server stops the group itself",
  enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const pending = s.run(script(lab, "sleep 30"));
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    Deno.kill(shell.helperPid, "SIGSTOP");
    try {
      const result = await pending;
      await assertGroupStopped(result, "deadline", pgid);
      assert.equal(s.server.context.enrollments!.shells.has(lab.pane), false);
    } finally {
      Deno.kill(shell.helperPid, "SIGCONT");
    }
  }, ["--run-timeout", "1"]),
);

Deno.test(
  "a script that finished before its shell was killed still returns its result",
  enrolled(async (lab, s) => {
    const shell = s.server.context.enrollments!.shells.get(lab.pane)!;
    const go = `${lab.dir}/go`;
    const pending = s.run(
      script(lab, `while [ ! -e '${go}' ]; do sleep 0.02; done; echo finished`),
    );
    const pgid = await pidIn(`${lab.dir}/sh.pid`);
    // The helper is held still while sh exits and the shell dies, so the result can only be
    // sent after the server has seen the shell gone.
    Deno.kill(shell.helperPid, "SIGSTOP");
    await Deno.writeTextFile(go, "");
    await waitFor("sh to exit", async () => !await processExists(pgid));
    Deno.kill(shell.identity.pid, "SIGKILL");
    await waitFor("the shell to die", async () => !await processExists(shell.identity.pid));
    Deno.kill(shell.helperPid, "SIGCONT");
    const result = await pending;
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.data.stdout.data, "finished\n");
    assert.deepEqual(result.data.completion, { state: "exited", exit_status: 0, signal: null });
  }),
);

Deno.test(
  "a script has stdin, stdout and stderr and no other descriptor",
  enrolled(async (_lab, s) => {
    const result = await s.run("ls /proc/$$/fd");
    assert.equal(result.data.stdout.data, "0\n1\n2\n");
  }),
);

Deno.test(
  "the shell's umask reaches the script (077 and 027)",
  enrolled(async (lab, s) => {
    for (const [mask, mode] of [["077", "600"], ["027", "640"]]) {
      await typeInto(lab, `umask ${mask}`, true);
      await waitForPrompt(lab);
      await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-l");
      await waitForPrompt(lab);
      const result = await s.run(`umask; rm -f f; touch f; stat -c %a f; rm f`);
      assert.equal(result.data.stdout.data, `0${mask}\n${mode}\n`);
    }
  }),
);
