// snapshot_pane against a real zsh and a real full-screen program: at the prompt the screen is
// the shell's (no alternate screen, the cursor after the prompt), under less it is less's
// alternate screen with less in the foreground, and tmux's copy mode shows as pane_mode.
import assert from "node:assert/strict";
import { type Lab, type Payload, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";
import { LAB_PROMPT } from "../lib/cli/private_lab.ts";

function lab(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((l) => withGeneral(l, {}, (s) => fn(l, s)));
}

async function snap(s: GeneralSession, pane: string): Promise<Payload> {
  const shot = await s.call("snapshot_pane", { pane_id: pane });
  assert.ok(shot.ok, JSON.stringify(shot));
  return shot.data;
}

/** The screen, once `holds` says it shows what the test waits for. */
function screenWhen(s: GeneralSession, lab: Lab, what: string, holds: (shot: Payload) => boolean) {
  return waitFor(what, async () => {
    const shot = await snap(s, lab.pane);
    return holds(shot) ? shot : null;
  });
}

Deno.test(
  "at a shell prompt the screen is the shell's, under less it is less's alternate screen",
  lab(async (lab, s) => {
    const shell = await snap(s, lab.pane);
    assert.equal(shell.alternate_screen, false);
    assert.equal(shell.pane_mode, null);
    assert.equal(shell.lines.length, shell.height, "one line per row of the pane");
    assert.equal(shell.truncated_lines, 0);
    assert.equal(shell.lines[shell.cursor_y], LAB_PROMPT.trimEnd());
    assert.equal(shell.cursor_x, LAB_PROMPT.length);
    assert.equal(shell.current_command, "zsh");
    assert.deepEqual(shell.foreground.argv, ["zsh", "-i"]);
    const width = Number(
      await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_width}"),
    );
    assert.equal(shell.width, width);

    const file = `${lab.dir}/numbers.txt`;
    await Deno.writeTextFile(
      file,
      Array.from({ length: 200 }, (_, i) => `number ${i + 1}`).join("\n") + "\n",
    );
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", `less ${file}`);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    const paged = await screenWhen(
      s,
      lab,
      "less to draw its first page",
      (shot) => shot.alternate_screen && shot.lines[0] === "number 1",
    );
    assert.equal(paged.current_command, "less");
    assert.deepEqual(paged.foreground.argv, ["less", file]);
    assert.equal(paged.lines.length, paged.height);
    assert.ok(!paged.lines.includes(LAB_PROMPT.trimEnd()), "none of the shell's screen");
    assert.equal(paged.lines[paged.height - 2], `number ${paged.height - 1}`);
    assert.equal(paged.cursor_y, paged.height - 1, "less waits on its bottom line");

    await lab.tmuxCmd("send-keys", "-t", lab.pane, "q");
    await waitForPrompt(lab);
    const back = await screenWhen(
      s,
      lab,
      "the shell's screen again",
      (shot) => !shot.alternate_screen,
    );
    assert.equal(back.current_command, "zsh");
  }),
);

Deno.test(
  "copy mode shows as pane_mode, and leaving it as none",
  lab(async (lab, s) => {
    await lab.tmuxCmd("copy-mode", "-t", lab.pane);
    const copying = await snap(s, lab.pane);
    assert.equal(copying.pane_mode, "copy-mode");
    assert.equal(copying.alternate_screen, false);
    assert.equal(copying.lines[copying.cursor_y], LAB_PROMPT.trimEnd(), "the screen beneath");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-X", "cancel");
    await screenWhen(s, lab, "copy mode to end", (shot) => shot.pane_mode === null);
  }),
);

Deno.test(
  "a pane that does not exist is not_found, naming it",
  lab(async (_lab, s) => {
    const missing = await s.call("snapshot_pane", { pane_id: "%999" });
    assert.equal(missing.error.code, "not_found");
    assert.match(missing.error.message, /%999/);
  }),
);
