// A tmux server stopped (SIGSTOP) in the middle of a call: the answer says what is known, never a
// cancel nobody sent, and never `not_sent` for a line that was typed.
import assert from "node:assert/strict";
import { type Lab, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

async function tmuxPid(lab: Lab): Promise<number> {
  return Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
}

/** Runs `fn` with the lab's tmux server stopped, and resumes it whatever happens. */
async function whileStopped<T>(lab: Lab, fn: () => Promise<T>): Promise<T> {
  const pid = await tmuxPid(lab);
  Deno.kill(pid, "SIGSTOP");
  try {
    return await fn();
  } finally {
    Deno.kill(pid, "SIGCONT");
  }
}

Deno.test("run_command whose tmux stops after the line was typed says tmux_not_answering, possibly sent", () =>
  withLab(async (lab) => {
    await withGeneral(lab, {}, async (s) => {
      const running = s.call("run_command", {
        pane_id: lab.pane,
        command: "sleep 4; echo after-the-stop",
        timeout: 2,
      });
      running.catch(() => {});
      // Typed: the line shows on the screen (its echo comes only after 4 s).
      await waitFor(
        "the line to be typed",
        async () =>
          (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("after-the-stop"),
      );
      const result = await whileStopped(lab, () => running);
      assert.equal(result.ok, false, JSON.stringify(result));
      assert.equal(result.error.code, "tmux_not_answering", JSON.stringify(result));
      assert.equal(result.error.delivery, "possibly_sent", JSON.stringify(result));
    });
  }));

Deno.test("a wait whose tmux stops after its first look times out with that look, not as cancelled", () =>
  withLab(async (lab) => {
    await withGeneral(lab, {}, async (s) => {
      let reports = 0;
      const waiting = s.call("wait_for_text", {
        pane_id: lab.pane,
        patterns: ["NEVER_SHOWN"],
        timeout: 2,
      }, { onprogress: () => reports++ });
      waiting.catch(() => {});
      // The first report comes right after the first look.
      await waitFor("the wait's first look", () => reports > 0);
      const result = await whileStopped(lab, () => waiting);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(result.data.outcome, "timeout", JSON.stringify(result));
      assert.equal(typeof result.data.last_lines, "string", JSON.stringify(result));
    });
  }));
