// Looks are bounded: on a pane with 30,000 lines of history, capture_since, wait_for_text and
// run_command read the screen and a window of history above it, never all of it. Text that
// arrives after a cursor is still answered exactly; a cursor further back than the window holds
// is answered as lines missed, with what the window holds, not with every line since.
import assert from "node:assert/strict";
import { type Lab, typeInto, waitFor, waitForPrompt, withLab, zshCommand } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";
import { LOOK_HISTORY_LINES } from "../lib/tmux/capture.ts";

const HISTORY_LINES = 30_000;
/** More lines than a look's window holds above the screen. */
const BEYOND_WINDOW = 15_000;
/** The lab's screen rows (private_lab.ts). */
const ROWS = 40;

/**
 * A test on a zsh pane whose history holds HISTORY_LINES lines: a new window, since a pane
 * takes its history limit when it is made.
 */
function longHistory(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () =>
    withLab((lab) =>
      withGeneral(lab, {}, async (s) => {
        await lab.tmuxCmd("set-option", "-g", "history-limit", String(4 * HISTORY_LINES));
        const pane = await lab.tmuxCmd(
          "new-window",
          "-d",
          "-P",
          "-F",
          "#{pane_id}",
          "--",
          ...zshCommand(lab.dir),
        );
        const big = { ...lab, pane };
        await waitForPrompt(big);
        await printed(big, `seq 1 ${HISTORY_LINES}`, `${HISTORY_LINES}`);
        const history = Number(
          await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{history_size}"),
        );
        assert.ok(history >= HISTORY_LINES - ROWS, `history_size ${history}`);
        await fn(big, s);
      })
    );
}

/** Types `command`, then waits until its last line `last` shows and the prompt is back. */
async function printed(lab: Lab, command: string, last: string): Promise<void> {
  await typeInto(lab, command, true);
  await waitFor(
    `the screen to show ${last}`,
    async () =>
      (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).split("\n").includes(last),
  );
  await waitForPrompt(lab);
}

/** The lines an answer accounts for: those it returned and those it says it cut. */
function accountedLines(text: string, truncated: number): number {
  return text.split("\n").length + truncated;
}

Deno.test(
  "capture_since returns exactly the lines after its cursor on a pane with a long history",
  longHistory(async (lab, s) => {
    const first = await s.call("capture_since", { pane_id: lab.pane });
    assert.equal(first.ok, true, JSON.stringify(first));
    await printed(lab, "echo NEW_''ONE; echo NEW_''TWO", "NEW_TWO");
    const second = await s.call("capture_since", { pane_id: lab.pane, cursor: first.data.cursor });
    assert.deepEqual(second.data.text.split("\n"), [
      "lab# echo NEW_''ONE; echo NEW_''TWO",
      "NEW_ONE",
      "NEW_TWO",
      "lab#",
    ]);
    assert.equal(second.data.lines_missed, false);
    assert.equal(second.data.truncated_lines, 0);
  }),
);

Deno.test(
  "wait_for_text matches text that arrives after its cursor on a pane with a long history",
  longHistory(async (lab, s) => {
    const look = await s.call("capture_since", { pane_id: lab.pane });
    let begun = false;
    const waiting = s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: ["LATE_TOKEN"],
      cursor: look.data.cursor,
      timeout: 20,
    }, { onprogress: () => begun = true });
    await waitFor("the wait to begin", () => begun);
    await typeInto(lab, "echo LATE_''TOKEN", true);
    const result = await waiting;
    assert.equal(result.data.outcome, "matched", JSON.stringify(result));
    assert.equal(result.data.matched_text, "LATE_TOKEN");
    assert.equal(result.data.text_since_cursor.trimStart(), "echo LATE_''TOKEN");
    assert.equal(result.data.lines_missed, false);
  }),
);

Deno.test(
  "a cursor further back than a look's window is answered as lines missed, not every line",
  longHistory(async (lab, s) => {
    const look = await s.call("capture_since", { pane_id: lab.pane });
    const cursor = look.data.cursor;
    await printed(lab, `seq -f 'late %g' 1 ${BEYOND_WINDOW}`, `late ${BEYOND_WINDOW}`);
    const since = await s.call("capture_since", {
      pane_id: lab.pane,
      cursor,
      max_lines: LOOK_HISTORY_LINES,
    });
    assert.equal(since.data.lines_missed, true, JSON.stringify(since.data).slice(0, 300));
    assert.equal(since.data.missed_reason, "history_changed");
    assert.deepEqual(since.data.text.split("\n").slice(-2), [`late ${BEYOND_WINDOW}`, "lab#"]);
    const answered = accountedLines(since.data.text, since.data.truncated_lines);
    assert.ok(answered <= LOOK_HISTORY_LINES + ROWS, `${answered} lines: more than one window`);
    const waited = await s.call("wait_for_text", {
      pane_id: lab.pane,
      patterns: [`late ${BEYOND_WINDOW}`],
      cursor,
      timeout: 20,
    });
    assert.equal(waited.data.outcome, "matched", JSON.stringify(waited.data).slice(0, 300));
    assert.equal(waited.data.lines_missed, true);
    assert.equal(waited.data.text_truncated, true);
  }),
);

Deno.test(
  "run_command reads its output from a bounded look on a pane with a long history",
  longHistory(async (lab, s) => {
    const short = await s.call("run_command", { pane_id: lab.pane, command: "echo RUN_OUT" });
    assert.equal(short.data.exit_status, 0, JSON.stringify(short));
    assert.equal(short.data.output, "RUN_OUT");
    assert.equal(short.data.note, null);
    const long = await s.call("run_command", {
      pane_id: lab.pane,
      command: `seq -f 'run %g' 1 ${BEYOND_WINDOW}`,
    });
    assert.equal(long.data.exit_status, 0, JSON.stringify(long.data).slice(0, 300));
    assert.equal(long.data.output.split("\n").at(-1), `run ${BEYOND_WINDOW}`);
    assert.match(long.data.note, new RegExp(`more than ${LOOK_HISTORY_LINES} lines above`));
    await waitForPrompt(lab);
    // A run that timed out after printing more than the window: its start marker is above
    // every look, and waiting again still gives the output it printed last.
    const slow = await s.call("run_command", {
      pane_id: lab.pane,
      command: `seq -f 'slow %g' 1 ${BEYOND_WINDOW}; read -r line; echo DONE_$line`,
      timeout: 1,
    });
    assert.equal(slow.data.timed_out, true, JSON.stringify(slow.data).slice(0, 300));
    await waitFor(
      "the slow run's last line",
      async () =>
        (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes(
          `slow ${BEYOND_WINDOW}`,
        ),
    );
    const again = await s.call("wait_for_command", {
      pane_id: lab.pane,
      command_id: slow.data.command_id,
      timeout: 0.5,
    });
    assert.equal(again.data.timed_out, true, JSON.stringify(again.data).slice(0, 300));
    assert.equal(again.data.output.split("\n").at(-1), `slow ${BEYOND_WINDOW}`);
    await typeInto(lab, "go", true);
    const done = await s.call("wait_for_command", {
      pane_id: lab.pane,
      command_id: slow.data.command_id,
      timeout: 20,
    });
    assert.equal(done.data.exit_status, 0, JSON.stringify(done.data).slice(0, 300));
    assert.equal(done.data.output.split("\n").at(-1), "DONE_go");
    assert.match(done.data.note, new RegExp(`more than ${LOOK_HISTORY_LINES} lines above`));
  }),
);
