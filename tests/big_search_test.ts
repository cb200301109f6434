// search_panes over the history of many long panes (issue 31, item 4): 50 panes of 100,000
// history lines each once took tmux longer than one 5 s bound to capture as one batch, and the
// search answered tmux_not_answering while tmux was busy working, dropping the control
// connection. A search reads a bounded window of each pane's history, asks tmux a few panes at
// a time, and says how much it read.
import assert from "node:assert/strict";
import { type Lab, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { clientArgs } from "../lib/tmux/tmux.ts";

const PANES = 50;
const HISTORY = 100_000;

/**
 * `count` more windows of one pane each, every one printing 1 to HISTORY into its history: one
 * at a time, each awaited through its `tmux wait-for -S`, so tmux is never asked to make a window
 * while it reads another's output. Each window's id goes into `made` as soon as it exists.
 */
async function fillPanes(lab: Lab, count: number, made: string[]): Promise<void> {
  await lab.tmuxCmd("set-option", "-g", "history-limit", String(HISTORY + 1000));
  for (let i = 0; i < count; i++) {
    const channel = `filled-${i}`;
    const command = `seq ${HISTORY}; tmux wait-for -S ${channel}; exec cat`;
    made.push(await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{window_id}", command));
    const waited = await new Deno.Command(lab.tmux.bin, {
      args: [...clientArgs(lab.tmux.socket), "wait-for", channel],
      stdout: "null",
      stderr: "null",
      signal: AbortSignal.timeout(60_000),
    }).output();
    assert.equal(waited.code, 0, `pane ${i} did not print its history within 60 s`);
  }
}

/**
 * Closes the windows one at a time: tmux frees a window's history as it closes it (0.1 s for
 * 100,000 lines), and a kill-server that freed all 50 at once kept the server from answering
 * the harness's check that it exited for about 5 s.
 */
async function closeWindows(lab: Lab, windows: string[]): Promise<void> {
  for (const window of windows) await lab.tmuxCmd("kill-window", "-t", window);
}

Deno.test("a history search over 50 panes of 100,000 lines finishes and says what it read", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const windows: string[] = [];
      try {
        await fillPanes(lab, PANES, windows);
        const found = await s.call("search_panes", {
          pattern: `^${HISTORY}$`,
          regex: true,
          history: true,
          max_matches: 1000,
        });
        assert.equal(found.ok, true, JSON.stringify(found).slice(0, 500));
        assert.equal(found.data.panes_searched, PANES + 1);
        assert.equal(found.data.matches.length, PANES, "each filled pane's last line is found");
        assert.equal(found.data.history_cut, true, "no pane's whole history was read");
        const perPane = found.data.history_lines_per_pane;
        assert.ok(perPane > 0 && perPane < HISTORY, `${perPane} history lines per pane`);
        assert.ok(perPane * (PANES + 1) <= 200_000, "a search reads at most 200,000 lines");
        const first = await s.call("search_panes", { pattern: "^1$", regex: true, history: true });
        assert.equal(first.ok, true, JSON.stringify(first).slice(0, 500));
        assert.deepEqual(first.data.matches, [], "the first lines are above the window read");
      } finally {
        await closeWindows(lab, windows);
      }
    })
  ));
