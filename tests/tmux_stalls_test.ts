// A tmux server that stops answering (SIGSTOP, as a debugger or a suspended job does) must not
// hold a tool call until it resumes: each tool answers by its own timeout, or by the bound on
// one tmux command, with tmux_not_answering naming the server; the clients it started are gone,
// and once the server resumes the tools work again with answers that are their own.
import assert from "node:assert/strict";
import { childrenBesideGuards, type Lab, waitFor, withLab, withServer } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";

/** Longer than any bound a tool here has (5 s a command, the timeouts below), by far. */
const PATIENCE_MS = 30_000;

/** Runs `fn` while the lab's tmux server is stopped; it is always continued afterwards. */
async function whileStopped<T>(lab: Lab, fn: () => Promise<T>): Promise<T> {
  const pid = Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
  Deno.kill(pid, "SIGSTOP");
  try {
    return await fn();
  } finally {
    Deno.kill(pid, "SIGCONT");
  }
}

/** `call`'s answer, or a failure naming `what` if none comes within PATIENCE_MS. */
async function answered<T>(what: string, call: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} gave no answer while the tmux server was stopped`)),
      PATIENCE_MS,
    );
  });
  try {
    return await Promise.race([call, late]);
  } finally {
    clearTimeout(timer);
  }
}

function assertNotAnswering(lab: Lab, payload: { ok: boolean; error?: { [k: string]: string } }) {
  assert.equal(payload.ok, false, JSON.stringify(payload));
  assert.equal(payload.error?.code, "tmux_not_answering", JSON.stringify(payload));
  const message = payload.error?.message ?? "";
  assert.ok(message.includes(`socket "${lab.socketName}"`), message);
  assert.match(message, /did not answer/);
  assert.match(message, /list-sessions/, "it says what to do next");
  assert.ok(!message.includes("/"), `no path in: ${message}`);
}

/** The tmux clients the server started are killed and reaped: this process has no other child. */
async function noClientLeft(): Promise<void> {
  await waitFor(
    "the abandoned tmux clients to be reaped",
    async () => (await childrenBesideGuards()).length === 0,
  );
}

function general(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((lab) => withGeneral(lab, {}, (s) => fn(lab, s)));
}

Deno.test(
  "a wait on a stopped tmux server answers by its timeout, naming the server",
  general(async (lab, s) => {
    const payload = await whileStopped(lab, async () => {
      const payload = await answered(
        "wait_for_text",
        s.call("wait_for_text", { pane_id: lab.pane, patterns: ["never"], timeout: 2 }),
      );
      await noClientLeft();
      return payload;
    });
    assertNotAnswering(lab, payload);
  }),
);

Deno.test(
  "run_command on a stopped tmux server answers by its timeout and types nothing later",
  general(async (lab, s) => {
    const payload = await whileStopped(lab, async () => {
      const payload = await answered(
        "run_command",
        s.call("run_command", { pane_id: lab.pane, command: "echo STALL''ED", timeout: 3 }),
      );
      await noClientLeft();
      return payload;
    });
    assertNotAnswering(lab, payload);
    const after = await s.call("run_command", { pane_id: lab.pane, command: "echo AGAIN" });
    assert.equal(after.data?.exit_status, 0, JSON.stringify(after));
    assert.equal(after.data.output, "AGAIN");
  }),
);

Deno.test(
  "list_panes on a stopped tmux server answers by the command bound, then works on resume",
  general(async (lab, s) => {
    const payload = await whileStopped(lab, async () => {
      const payload = await answered("list_panes", s.call("list_panes", {}));
      await noClientLeft();
      return payload;
    });
    assertNotAnswering(lab, payload);
    const after = await s.call("list_panes", {});
    assert.deepEqual(after.data?.panes.map((p: { pane_id: string }) => p.pane_id), [lab.pane]);
  }),
);

Deno.test(
  "a control connection whose server stops is dropped: later answers are not mis-assigned",
  general(async (lab, s) => {
    // A wait opens the control connection that later reads go through; it starts from the
    // cursor send_keys took before typing, so the output cannot come before the wait looks.
    const sent = await s.call("send_keys", {
      pane_id: lab.pane,
      keys: "echo OPE''NED",
      enter: true,
    });
    const waited = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["OPENED"],
      cursor: sent.data.cursor,
    });
    assert.equal(waited.data.outcome, "matched", JSON.stringify(waited));
    const payload = await whileStopped(
      lab,
      () => answered("list_panes", s.call("list_panes", {})),
    );
    assertNotAnswering(lab, payload);
    // The abandoned list-panes is answered by the resumed server; no later call may get it.
    const info = await s.call("get_pane_info", { pane_id: lab.pane });
    assert.equal(info.data?.pane.pane_id, lab.pane, JSON.stringify(info));
    const listed = await s.call("list_panes", {});
    assert.deepEqual(listed.data?.panes.map((p: { pane_id: string }) => p.pane_id), [lab.pane]);
    const windows = await s.call("list_windows", {});
    assert.ok(windows.data?.windows.length === 1, JSON.stringify(windows));
  }),
);

Deno.test("tmux_run on a stopped tmux server answers, naming the server", () =>
  withLab((lab) =>
    withServer(
      lab,
      ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP", "--run-timeout", "6"],
      async (s) => {
        await s.enroll();
        const payload = await whileStopped(lab, () => answered("tmux_run", s.run("echo hi")));
        assert.equal(payload.ok, false, JSON.stringify(payload));
        assert.equal(payload.error.code, "deadline");
        assert.ok(payload.error.message.includes(`socket "${lab.socketName}"`));
        assert.match(payload.error.message, /did not answer the authorization/);
        const after = await s.run("echo again");
        assert.equal(after.data?.stdout.data, "again\n", JSON.stringify(after));
      },
    )
  ));
