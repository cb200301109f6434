// A program that opened an OSC escape (ESC ]) and never ended it leaves tmux taking all that
// follows as the escape's text, until a BEL or the next escape: run_command's end marker never
// shows. Its timeout says so, and how to clear it, instead of a silent wait.
import assert from "node:assert/strict";
import { type Lab, splitPane, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

const OPEN_OSC = "printf '\\033]0;open'";

Deno.test("a command that opens an OSC escape times out saying so (zsh ends it at its prompt)", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      // The first run learns the prompt.
      const first = await s.call("run_command", { pane_id: lab.pane, command: "true" });
      assert.equal(first.data?.exit_status, 0, JSON.stringify(first));
      const blind = await s.call("run_command", {
        pane_id: lab.pane,
        command: `${OPEN_OSC}; echo hidden`,
        timeout: 1,
      });
      assert.equal(blind.data?.timed_out, true, JSON.stringify(blind));
      assert.match(blind.data.note, /unterminated escape string \(an OSC/, blind.data.note);
      assert.match(blind.data.note, /printf '\\a'/);
    })
  ));

/** A dash pane: its prompt has no escapes, so an escape left open stays open. */
async function dashPane(lab: Lab): Promise<string> {
  const pane = await splitPane(lab, "env", "-i", "PATH=/usr/bin:/bin", "PS1=lab# ", "dash", "-i");
  await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
  return pane;
}

Deno.test("a run into a pane where an OSC escape is still open times out saying so", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const pane = await dashPane(lab);
      const first = await s.call("run_command", { pane_id: pane, command: "true" });
      assert.equal(first.data?.exit_status, 0, JSON.stringify(first));
      const opened = `${lab.dir}/opened`;
      await lab.tmuxCmd("send-keys", "-t", pane, "-l", `${OPEN_OSC}; touch '${opened}'`);
      await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
      await waitFor("the escape to be open", () => Deno.stat(opened).then(() => true, () => false));
      const blind = await s.call("run_command", {
        pane_id: pane,
        command: "echo never-seen",
        timeout: 1,
      });
      assert.equal(blind.data?.timed_out, true, JSON.stringify(blind));
      assert.match(blind.data.note, /unterminated escape string \(an OSC/, blind.data.note);
      // What the note says clears it: the prompt shows again.
      await lab.tmuxCmd("send-keys", "-t", pane, "-l", "printf '\\a'");
      await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
      await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
    })
  ));
