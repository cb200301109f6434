// wait_for_text and capture_since against a real zsh: only new output counts, cursors survive
// between calls and admit missed lines, waits are clamped, cancellable and leave no child.
import assert from "node:assert/strict";
import {
  childrenWithArgv,
  isDirectoryGuard,
  type Lab,
  splitPane,
  typeInto,
  waitFor,
  waitForPrompt,
  withLab,
} from "./harness.ts";
import { type GeneralSession, type SessionOptions, withGeneral } from "./general_session.ts";

function zsh(
  fn: (lab: Lab, s: GeneralSession) => Promise<void>,
  options: SessionOptions = {},
): () => Promise<void> {
  return () => withLab((lab) => withGeneral(lab, options, (s) => fn(lab, s)));
}

/** The server's wait ceiling at 1 s, set the way a person sets it: in its environment. */
const ONE_SECOND_CEILING = { env: { LIBTMUX_MCP_WAIT_MAX_SECONDS: "1" } };

async function screenShows(lab: Lab, text: string) {
  await waitFor(
    `the screen to show ${text}`,
    async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes(text),
  );
}

Deno.test(
  "wait_for_text ignores text already on screen and waits for new output",
  zsh(async (lab, s) => {
    await typeInto(lab, "echo OLD_TOKEN", true);
    await screenShows(lab, "OLD_TOKEN\n");
    await waitForPrompt(lab);
    const early = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["OLD_TOKEN"],
      timeout: 0.5,
    });
    assert.equal(early.data.outcome, "timeout");
    assert.equal(early.data.effective_timeout, 0.5);
    let begun = false;
    const waiting = s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["NEW_[A-Z]+"],
      regex: true,
      timeout: 10,
    }, { onprogress: () => begun = true });
    await waitFor("the wait to begin", () => begun);
    await typeInto(lab, "echo NEW_''TOKEN", true);
    const result = await waiting;
    assert.equal(result.data.outcome, "matched");
    assert.equal(result.data.matched_text, "NEW_TOKEN");
  }),
);

Deno.test(
  "wait_for_text does not match the command typed before the wait, only its output",
  zsh(async (lab, s) => {
    await typeInto(lab, "sleep 0.5; echo DONE_$((40+2))");
    await screenShows(lab, "DONE_$((40+2))");
    let begun = false;
    const waiting = s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["DONE_"],
      timeout: 10,
    }, { onprogress: () => begun = true });
    await waitFor("the wait to begin", () => begun);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    const result = await waiting;
    assert.equal(result.data.outcome, "matched");
    const after = await s.call("capture_since", { pane_id: lab.pane, cursor: result.data.cursor });
    assert.doesNotMatch(after.data.text, /DONE_42/, "the match consumed the output line");
    const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    assert.match(screen, /^DONE_42$/m);
  }),
);

Deno.test(
  "a paste longer than a cursor keeps of it is still not taken for output, to its last line",
  zsh(async (lab, s) => {
    await typeInto(lab, "cat >/dev/null", true);
    await waitFor("cat to read the terminal", async () => {
      const command = await lab.tmuxCmd(
        "display-message",
        "-p",
        "-t",
        lab.pane,
        "#{pane_current_command}",
      );
      return command.trim() === "cat";
    });
    // 120 lines of 22 or so characters: more than the 2048 a cursor keeps (TYPED_KEPT).
    const lines = Array.from({ length: 120 }, (_, n) => `pasted line ${n} of 120`);
    const pasted = await s.call("paste_text", { pane_id: lab.pane, text: `${lines.join("\n")}\n` });
    assert.equal(pasted.ok, true, JSON.stringify(pasted.error));
    await screenShows(lab, "pasted line 119 of 120");
    // The terminal's echo of a middle line and of one near the end is not output.
    const patterns = ["pasted line 60 of", "pasted line 110 of", "^FIN2$"];
    const cursor = pasted.data.cursor;
    const echo = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns,
      regex: true,
      cursor,
      timeout: 1,
    });
    assert.equal(echo.data.outcome, "timeout", JSON.stringify(echo.data));
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-d");
    await waitForPrompt(lab);
    await typeInto(lab, "echo FIN$((1+1))", true);
    const output = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns,
      regex: true,
      cursor,
      timeout: 10,
    });
    assert.equal(output.data.outcome, "matched", JSON.stringify(output.data));
    assert.equal(output.data.pattern_index, 2);
  }),
);

Deno.test(
  "a stop pattern that appears first ends the wait as stopped",
  zsh(async (lab, s) => {
    let begun = false;
    const waiting = s.client.callTool(
      {
        name: "wait_for_text",
        arguments: { pane_id: lab.pane, patterns: ["SUCCESS"], stop: ["FAIL"], timeout: 10 },
      },
      { onprogress: () => begun = true },
    );
    await waitFor("the wait to begin", () => begun);
    await typeInto(lab, "echo F''AIL; sleep 0.2; echo S''UCCESS", true);
    const result = JSON.parse(((await waiting).content as { text: string }[])[0].text);
    assert.equal(result.data.outcome, "stopped");
    assert.equal(result.data.matched_text, "FAIL");
  }),
);

Deno.test(
  "a regex is tested line by line: ^ and $ anchor the line the output printed",
  zsh(async (lab, s) => {
    let begun = false;
    const waiting = s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["^ZED-OK$"],
      regex: true,
      timeout: 10,
    }, { onprogress: () => begun = true });
    await waitFor("the wait to begin", () => begun);
    await typeInto(lab, "echo first; echo ZED-''OK; echo last", true);
    const result = await waiting;
    assert.equal(result.data.outcome, "matched", JSON.stringify(result));
    assert.equal(result.data.matched_text, "ZED-OK");
    assert.equal(result.data.last_lines, null);
  }),
);

Deno.test(
  "ignore_case matches literal and regex patterns whatever the letter case",
  zsh(async (lab, s) => {
    for (const [pattern, regex] of [["build ok", false], ["^BUILD\\s+OK$", true]] as const) {
      let begun = false;
      const waiting = s.call("wait_for_text", {
        pane_id: lab.pane,
        patterns: [pattern],
        regex,
        ignore_case: true,
        timeout: 10,
      }, { onprogress: () => begun = true });
      await waitFor("the wait to begin", () => begun);
      await typeInto(lab, "echo Build' 'OK", true);
      const result = await waiting;
      assert.equal(result.data.outcome, "matched", `${pattern}: ${JSON.stringify(result)}`);
      assert.equal(result.data.matched_text, "Build OK");
      await waitForPrompt(lab);
    }
  }),
);

Deno.test(
  "a timeout returns the last lines of the screen, so the agent can see why",
  zsh(async (lab, s) => {
    await typeInto(lab, "echo 'Password for build:'", true);
    await screenShows(lab, "Password for build:\n");
    await waitForPrompt(lab);
    const result = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["never-appears"],
      timeout: 0.3,
    });
    assert.equal(result.data.outcome, "timeout");
    assert.match(result.data.last_lines, /^Password for build:$/m);
    assert.match(result.data.last_lines, /lab#$/);
  }),
);

Deno.test(
  "a timeout longer than the schema could ever allow is clamped, not rejected",
  zsh(async (lab, s) => {
    const result = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["never-appears"],
      timeout: 1e9,
    });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.equal(result.data.effective_timeout, 1);
  }, ONE_SECOND_CEILING),
);

Deno.test(
  "a pane whose process exits ends the wait as pane_dead",
  zsh(async (lab, s) => {
    await lab.tmuxCmd("set-option", "-g", "remain-on-exit", "on");
    const pane = await splitPane(lab, "sleep 0.5");
    const result = await s.call("wait_for_text", { pane_id: pane, patterns: ["x"], timeout: 10 });
    assert.equal(result.data?.outcome, "pane_dead", JSON.stringify(result));
  }),
);

Deno.test(
  "capture_since returns the screen, then only new lines, then admits lines lost to clear-history",
  zsh(async (lab, s) => {
    await typeInto(lab, "echo BEFORE", true);
    await screenShows(lab, "BEFORE\n");
    await waitForPrompt(lab);
    const first = await s.call("capture_since", { pane_id: lab.pane });
    assert.match(first.data.text, /BEFORE/);
    assert.equal(first.data.lines_missed, false);
    await typeInto(lab, "echo AFTER", true);
    await screenShows(lab, "AFTER\n");
    await waitForPrompt(lab);
    const second = await s.call("capture_since", { pane_id: lab.pane, cursor: first.data.cursor });
    assert.doesNotMatch(second.data.text, /BEFORE/);
    assert.match(second.data.text, /^AFTER$/m);
    assert.equal(second.data.text.split("\n")[0], "lab# echo AFTER", "the prompt stays");
    assert.equal(second.data.lines_missed, false);
    const idle = await s.call("capture_since", { pane_id: lab.pane, cursor: second.data.cursor });
    assert.equal(idle.data.text, "");
    await typeInto(lab, "seq 1 100", true);
    await screenShows(lab, "100\n");
    await waitForPrompt(lab);
    await lab.tmuxCmd("clear-history", "-t", lab.pane);
    const third = await s.call("capture_since", { pane_id: lab.pane, cursor: second.data.cursor });
    assert.equal(third.data.lines_missed, true);
    assert.equal(third.data.missed_reason, "history_changed");
    assert.match(third.data.text, /^100$/m);
  }),
);

Deno.test(
  "a cursor survives the history above it being cleared, without reporting missed lines",
  () =>
    withLab((lab) =>
      withGeneral(lab, {}, async (s) => {
        await lab.tmuxCmd("set-option", "-g", "history-limit", "50");
        const pane = await lab.tmuxCmd(
          "new-window",
          "-d",
          "-P",
          "-F",
          "#{pane_id}",
          "sh",
          "-c",
          "seq 1 60; exec sleep 30",
        );
        await waitFor(
          "seq output",
          async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", pane)).includes("60"),
        );
        const first = await s.call("capture_since", { pane_id: pane });
        await lab.tmuxCmd("clear-history", "-t", pane);
        const second = await s.call("capture_since", { pane_id: pane, cursor: first.data.cursor });
        assert.equal(second.data.lines_missed, false, JSON.stringify(second));
        assert.equal(second.data.text, "");
      })
    ),
);

Deno.test(
  "a cursor for another pane or a forged cursor is refused",
  zsh(async (lab, s) => {
    const first = await s.call("capture_since", { pane_id: lab.pane });
    const other = await splitPane(lab);
    const wrong = await s.call("capture_since", { pane_id: other, cursor: first.data.cursor });
    assert.equal(wrong.error.code, "invalid_cursor");
    const forged = await s.call("capture_since", { pane_id: lab.pane, cursor: "c1.e30" });
    assert.equal(forged.error.code, "invalid_cursor");
  }),
);

Deno.test(
  "a wait longer than the ceiling is clamped and reports the effective timeout",
  zsh(async (lab, s) => {
    const result = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["never-appears"],
      timeout: 100,
    });
    assert.equal(result.data?.outcome, "timeout", JSON.stringify(result));
    assert.equal(result.data.effective_timeout, 1);
    const run = await s.call("run_command", {
      pane_id: lab.pane,
      command: "sleep 5",
      timeout: 60,
    });
    assert.equal(run.data.effective_timeout, 1);
    assert.equal(run.data.timed_out, true);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await waitForPrompt(lab);
  }, ONE_SECOND_CEILING),
);

async function tmuxChildren(): Promise<number[]> {
  // The control-mode client stays attached by design; it ends when the server closes.
  return (await childrenWithArgv())
    .filter(({ argv }) => argv !== null && !isDirectoryGuard(argv) && !argv.includes("-C"))
    .map(({ pid }) => pid);
}

Deno.test(
  "cancelling a wait ends it at once and leaves no child process",
  zsh(async (lab, s) => {
    const progress: unknown[] = [];
    const controller = new AbortController();
    const waiting = s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["never-appears"],
      timeout: 20,
    }, { signal: controller.signal, onprogress: (p) => progress.push(p) });
    await waitFor("a progress notification", () => progress.length > 0, 5000);
    controller.abort();
    await assert.rejects(waiting);
    await waitFor("no child processes", async () => (await tmuxChildren()).length === 0, 2000);
  }),
);
