// Cursors without tmux: a cursor names a position in the grid plus the text just before it, so
// "since" finds that text again after history moved, says lines may be missed when it cannot,
// and across the alternate screen answers with the current screen, flagged as a redraw, never
// with the shell's scrollback. Looks hold a window of history, not all of it: a cursor's grid
// line holds across windows, and one older than a look's window missed lines.
import assert from "node:assert/strict";
import type { Snapshot } from "./capture.ts";
import { cursorAt, since } from "./since.ts";

/**
 * A pane whose cursor sits on the last line of `lines`, `column` cells in, no rows below; the
 * look holds all of its history unless `extra` says the window begins at a later `firstLine`.
 */
function screen(lines: string[], column: number, extra: Partial<Snapshot> = {}): Snapshot {
  const shot = {
    paneId: "%3",
    panePid: 100,
    dead: false,
    currentCommand: "zsh",
    historySize: lines.length - 1,
    firstLine: 0,
    cursorX: column,
    cursorY: 0,
    lines,
    escaped: false,
    alternate: false,
    ...extra,
  };
  return { ...shot, paneHistorySize: shot.firstLine + shot.historySize };
}

/** A look whose window of history begins at grid line `firstLine`. */
function windowed(firstLine: number, lines: string[], column: number): Snapshot {
  return screen(lines, column, { firstLine });
}

/** What since answers when it finds the cursor's line: that line onwards, new text from column 2. */
function found(lines: string[], arrived: string[]) {
  return { lines, firstColumn: 2, linesMissed: false, reason: null, redraw: false, arrived };
}

/** What since answers when it cannot find the cursor's line: all the look holds, all arrived. */
function missed(reason: "history_changed" | "respawned", lines: string[]) {
  return { lines, firstColumn: 0, linesMissed: true, reason, redraw: false, arrived: lines };
}

Deno.test("a cursor records its grid line, its column and the text before it", () => {
  const cursor = cursorAt(screen(["one", "two", "three", "$ make"], 2));
  assert.deepEqual(cursor, {
    paneId: "%3",
    panePid: 100,
    line: 3,
    column: 2,
    anchor: ["one", "two", "three", "$ "],
    alternate: false,
    screen: [],
  });
});

Deno.test("a cursor from a window names its grid line, not its index in the window", () => {
  const cursor = cursorAt(windowed(5000, ["one", "two", "$ "], 2));
  assert.equal(cursor.line, 5002);
  assert.deepEqual(cursor.anchor, ["one", "two", "$ "]);
});

Deno.test("the cursor column counts terminal cells, wide characters as two", () => {
  assert.deepEqual(cursorAt(screen(["日本x"], 4)).anchor, ["日本"]);
  assert.equal(cursorAt(screen(["日本x"], 4)).column, 2);
  assert.deepEqual(cursorAt(screen(["🙂ab"], 3)).anchor, ["🙂a"]);
  assert.equal(cursorAt(screen(["🙂ab"], 3)).column, 3);
});

Deno.test("the anchor keeps at most three lines before the cursor line", () => {
  const cursor = cursorAt(screen(["0", "1", "2", "3", "4", "$ "], 2));
  assert.deepEqual(cursor.anchor, ["2", "3", "4", "$ "]);
});

Deno.test("since returns the cursor's whole line onwards, and the column where new text starts", () => {
  const cursor = cursorAt(screen(["a", "b", "$ "], 2));
  const later = screen(["a", "b", "$ make", "built", "$ "], 2);
  assert.deepEqual(since(later, cursor), found(["$ make", "built", "$ "], ["make", "built", "$ "]));
});

Deno.test("since with nothing new returns the cursor line, nothing past its column", () => {
  const first = screen(["a", "$ "], 2);
  assert.deepEqual(since(first, cursorAt(first)), found(["$ "], [""]));
});

Deno.test("since finds the anchor again after history was trimmed", () => {
  const cursor = cursorAt(screen(["0", "1", "2", "a", "b", "$ "], 2));
  const trimmed = screen(["2", "a", "b", "$ make", "out", "$ "], 2);
  assert.deepEqual(since(trimmed, cursor), found(["$ make", "out", "$ "], ["make", "out", "$ "]));
});

/** `count` lines of history that are none of the tests' anchors. */
const older = (count: number) => Array.from({ length: count }, (_, i) => `older ${i}`);

Deno.test("a cursor from one window is found in a later look whose window begins elsewhere", () => {
  const cursor = cursorAt(windowed(4999, ["v", "a", "b", "c", "$ "], 2));
  const answer = found(["$ make", "out", "$ "], ["make", "out", "$ "]);
  // A wider window, from nine lines further up: the cursor's line is at index 13.
  const wider = windowed(4990, [...older(9), "v", "a", "b", "c", "$ make", "out", "$ "], 2);
  assert.deepEqual(since(wider, cursor), answer);
  // A window that slid down as lines arrived: the cursor's line is at index 3.
  const slid = windowed(5000, ["a", "b", "c", "$ make", "out", "$ "], 2);
  assert.deepEqual(since(slid, cursor), answer);
});

Deno.test("a cursor older than the look's window says lines were missed, with the window", () => {
  const cursor = cursorAt(windowed(5000, ["a", "b", "$ "], 2));
  // More lines arrived than the window holds: it begins below the cursor's line, and the
  // lines it holds repeat the cursor's own, which must not pass for them.
  const later = windowed(5010, ["a", "b", "$ ", "a", "b", "$ "], 2);
  assert.deepEqual(
    since(later, cursor),
    missed("history_changed", ["a", "b", "$ ", "a", "b", "$ "]),
  );
});

Deno.test("a cursor is found in a window after history was trimmed above it", () => {
  const cursor = cursorAt(windowed(5000, ["0", "a", "b", "$ "], 2));
  // The history reached its limit and lost 1000 lines at its top: the cursor's line, once
  // grid line 5003, is now 4003, and two lines came after it.
  const trimmed = windowed(3990, [...older(10), "0", "a", "b", "$ make", "out", "$ "], 2);
  assert.deepEqual(since(trimmed, cursor), found(["$ make", "out", "$ "], ["make", "out", "$ "]));
});

Deno.test("since says lines may be missed when the anchor is gone", () => {
  const cursor = cursorAt(screen(["a", "b", "c", "$ "], 2));
  const cleared = screen(["$ clear", "new"], 3);
  assert.deepEqual(since(cleared, cursor), missed("history_changed", ["$ clear", "new"]));
});

Deno.test("since says the pane was respawned when its root process changed", () => {
  const cursor = cursorAt(screen(["a", "$ "], 2));
  const respawned = screen(["a", "$ "], 2, { panePid: 101 });
  assert.deepEqual(since(respawned, cursor), missed("respawned", ["a", "$ "]));
});

Deno.test("since stops at the cursor row, not at the blank rows below it", () => {
  const cursor = cursorAt(screen(["$ "], 2));
  const later = screen(["$ ls", "x", "$ ", "", ""], 2, { historySize: 0, cursorY: 2 });
  assert.deepEqual(since(later, cursor).lines, ["$ ls", "x", "$ "]);
});

/** A pane on the alternate screen: `rows` visible under the shell's `history`. */
function fullScreen(history: string[], rows: string[]): Snapshot {
  return screen([...history, ...rows], 0, {
    historySize: history.length,
    cursorY: rows.length - 1,
    alternate: true,
  });
}

Deno.test("across a switch to the alternate screen, since is the screen, not the scrollback", () => {
  const shell = ["old output", "more old output", "$ less file"];
  const cursor = cursorAt(screen(shell, 12));
  const seen = since(fullScreen(shell, ["line 1 of file", "line 2 of file", ":"]), cursor);
  assert.equal(seen.redraw, true);
  assert.equal(seen.linesMissed, false);
  assert.deepEqual(seen.lines, ["line 1 of file", "line 2 of file", ":"]);
  assert.deepEqual(seen.arrived, seen.lines);
});

Deno.test("a redraw on the alternate screen is the screen; waits test only the changed rows", () => {
  const cursor = cursorAt(fullScreen(["$ vim"], ["a", "b", "~"]));
  const seen = since(fullScreen(["$ vim"], ["a", "B", "~"]), cursor);
  assert.equal(seen.redraw, true);
  assert.deepEqual(seen.lines, ["a", "B", "~"]);
  assert.deepEqual(seen.arrived, ["B"]);
});

Deno.test("an unchanged alternate screen is no news and no redraw", () => {
  const cursor = cursorAt(fullScreen(["$ top"], ["a", "b"]));
  const seen = since(fullScreen(["$ top"], ["a", "b"]), cursor);
  assert.equal(seen.redraw, false);
  assert.deepEqual(seen.lines, []);
  assert.deepEqual(seen.arrived, []);
});

Deno.test("leaving the alternate screen is a redraw too: the shell's screen as it is now", () => {
  const cursor = cursorAt(fullScreen(["$ less file"], ["file text", ":"]));
  const seen = since(screen(["$ less file", "$ "], 2, { historySize: 0, cursorY: 1 }), cursor);
  assert.equal(seen.redraw, true);
  assert.deepEqual(seen.lines, ["$ less file", "$ "]);
});
