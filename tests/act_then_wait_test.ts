// Act, then wait, through a real MCP client against real tmux, zsh, python3 and less: the
// cursor send_keys returns is taken before it types, so fast output is not missed; a wait with it
// never ends on the echo of the typed line; a REPL turn is two calls; a full-screen program is a
// redraw, never the shell's scrollback; a run_command that timed out is waited for again.
import assert from "node:assert/strict";
import { type Lab, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";

function zsh(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((lab) => withGeneral(lab, {}, (s) => fn(lab, s)));
}

async function screenShows(lab: Lab, text: string | RegExp) {
  await waitFor(`the screen to show ${text}`, async () => {
    const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    return typeof text === "string" ? screen.includes(text) : text.test(screen);
  });
}

/** Starts python3's REPL in the lab's pane through send_keys and waits for its prompt. */
async function startPython(lab: Lab, s: GeneralSession) {
  const sent = await s.call("send_keys", { pane_id: lab.pane, keys: "python3 -q", enter: true });
  const ready = await s.call("wait_for_text", {
    pane_id: lab.pane,
    patterns: ["^>>>"],
    regex: true,
    cursor: sent.data.cursor,
    timeout: 20,
  });
  assert.equal(ready.data.outcome, "matched", JSON.stringify(ready));
}

Deno.test(
  "a REPL turn is two calls: send_keys, then wait_for_text for the prompt returns the answer",
  zsh(async (lab, s) => {
    await startPython(lab, s);
    const sent = await s.call("send_keys", { pane_id: lab.pane, keys: "print(6*7)", enter: true });
    assert.ok(sent.data.cursor.length <= 64, sent.data.cursor);
    const turn = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["^>>>"],
      regex: true,
      cursor: sent.data.cursor,
      timeout: 20,
    });
    assert.equal(turn.data.outcome, "matched", JSON.stringify(turn));
    assert.equal(turn.data.matched_text, ">>>");
    assert.equal(turn.data.text_since_cursor, "42");
    assert.equal(turn.data.text_truncated, false);
  }),
);

Deno.test(
  "the echoed input line never satisfies a wait for output: ^42$ matches the answer",
  zsh(async (lab, s) => {
    await startPython(lab, s);
    const sent = await s.call("send_keys", { pane_id: lab.pane, keys: "print(6*7)", enter: true });
    const answer = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["^42$", ">>> print"],
      regex: true,
      cursor: sent.data.cursor,
      timeout: 20,
    });
    assert.equal(answer.data.outcome, "matched", JSON.stringify(answer));
    assert.equal(answer.data.pattern_index, 0, "the echo `>>> print(6*7)` matched");
    assert.equal(answer.data.matched_text, "42");
  }),
);

Deno.test(
  "a wait for text contained in the typed command does not end on its echo",
  zsh(async (lab, s) => {
    await startPython(lab, s);
    const sent = await s.call("send_keys", { pane_id: lab.pane, keys: "print(6*7)", enter: true });
    await screenShows(lab, /^42$/m);
    const wait = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["6*7"],
      cursor: sent.data.cursor,
      timeout: 0.5,
    });
    assert.equal(wait.data.outcome, "timeout", JSON.stringify(wait));
    assert.match(wait.data.text_since_cursor, /^42$/m, "a timeout keeps the output seen so far");
    assert.doesNotMatch(wait.data.text_since_cursor, /print/);
  }),
);

Deno.test(
  "output printed before the wait begins is found with send_keys' cursor",
  zsh(async (lab, s) => {
    await waitForPrompt(lab);
    const sent = await s.call("send_keys", {
      pane_id: lab.pane,
      keys: "echo FAST_$((40+2))",
      enter: true,
    });
    await screenShows(lab, /^FAST_42$/m);
    await waitForPrompt(lab);
    const wait = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["FAST_"],
      cursor: sent.data.cursor,
      timeout: 5,
    });
    assert.equal(wait.data.outcome, "matched", JSON.stringify(wait));
    assert.equal(wait.data.matched_text, "FAST_42", "the echo `echo FAST_$((40+2))` matched");
  }),
);

Deno.test(
  "capture_since across less's alternate screen is the current screen, flagged, 5 of 5",
  zsh(async (lab, s) => {
    const file = `${lab.dir}/pager.txt`;
    await Deno.writeTextFile(
      file,
      Array.from({ length: 200 }, (_, i) => `PAGER_LINE_${i}`).join("\n"),
    );
    await s.call("send_keys", {
      pane_id: lab.pane,
      keys: "seq -f OLD_SCROLLBACK_%g 1 300",
      enter: true,
    });
    await screenShows(lab, "OLD_SCROLLBACK_300\n");
    await waitForPrompt(lab);
    for (let round = 1; round <= 5; round++) {
      const sent = await s.call("send_keys", {
        pane_id: lab.pane,
        keys: `less ${file}`,
        enter: true,
      });
      await screenShows(lab, "PAGER_LINE_0");
      const seen = await s.call("capture_since", { pane_id: lab.pane, cursor: sent.data.cursor });
      assert.equal(seen.data.redraw, true, `round ${round}: ${JSON.stringify(seen.data)}`);
      assert.equal(seen.data.lines_missed, false, `round ${round}`);
      assert.match(seen.data.text, /^PAGER_LINE_0$/m, `round ${round}`);
      assert.doesNotMatch(seen.data.text, /OLD_SCROLLBACK/, `round ${round}: scrollback as new`);
      // Still in less, an unchanged screen is no news; a page down is a redraw.
      const idle = await s.call("capture_since", { pane_id: lab.pane, cursor: seen.data.cursor });
      assert.equal(idle.data.text, "", `round ${round}`);
      assert.equal(idle.data.redraw, false, `round ${round}`);
      await s.call("send_keys", { pane_id: lab.pane, keys: "q", literal: true });
      await waitFor(
        "less to end",
        async () =>
          (await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{alternate_on}")).trim() ===
            "0",
      );
      await waitForPrompt(lab);
    }
  }),
);

Deno.test(
  "a run_command that times out gives a command_id; wait_for_command gets its status and output",
  zsh(async (lab, s) => {
    await waitForPrompt(lab);
    const run = await s.call("run_command", {
      pane_id: lab.pane,
      command: "echo EARLY; read -r line; echo LATE_$line; exit 3",
      timeout: 0.5,
    });
    assert.equal(run.data.timed_out, true, JSON.stringify(run));
    assert.equal(run.data.exit_status, null);
    assert.match(run.data.output, /^EARLY$/m, "the timeout keeps the output so far");
    assert.match(run.data.command_id, /^[0-9a-f]{16}$/);
    const again = await s.call("wait_for_command", {
      pane_id: lab.pane,
      command_id: run.data.command_id,
      timeout: 0.3,
    });
    assert.equal(again.data.timed_out, true, "timing out again is said honestly");
    assert.equal(again.data.exit_status, null);
    assert.equal(again.data.command_id, run.data.command_id);
    assert.match(again.data.output, /^EARLY$/m);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", "go");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    const done = await s.call("wait_for_command", {
      pane_id: lab.pane,
      command_id: run.data.command_id,
      timeout: 20,
    });
    assert.equal(done.data.timed_out, false, JSON.stringify(done));
    assert.equal(done.data.exit_status, 3);
    assert.equal(done.data.command_id, null);
    assert.match(done.data.output, /^LATE_go$/m);
    const next = await s.call("run_command", { pane_id: lab.pane, command: "echo NEXT" });
    assert.equal(next.data.exit_status, 0, "the line is free again");
    const unknown = await s.call("wait_for_command", {
      pane_id: lab.pane,
      command_id: "0123456789abcdef",
    });
    assert.equal(unknown.error.code, "unknown_command");
  }),
);
