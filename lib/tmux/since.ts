// A cursor in a pane's grid, and what the pane showed since it. tmux numbers lines only
// relative to a history that it trims and clears, so "since" is a position in the grid (history
// size + cursor row, and the cursor column) checked against the text just before it: when that
// text has moved we find it again, and when it is gone we say lines may be missed rather than
// guess. A full-screen program draws on the alternate screen, where positions mean nothing and
// the shell's scrollback is still underneath: across a switch, or while a program redraws
// there, "since" is the current screen, flagged as a redraw. Cursors are kept by the server
// (cursor_store.ts); a client holds only a handle. A cursor names its grid line whatever window
// of history its look captured (capture.ts), and a cursor older than a look's window has missed
// lines.
import { ANCHOR_LINES, type Snapshot } from "./capture.ts";
import { leftOfColumn } from "./captured_text.ts";

export type Cursor = {
  paneId: string;
  panePid: number;
  /** The cursor's grid line (see Snapshot.firstLine), not an index into one look's lines. */
  line: number;
  column: number;
  anchor: string[];
  alternate: boolean;
  /** On the alternate screen: a digest of each visible row, to tell what a redraw changed. */
  screen: number[];
};

/** The index in `shot.lines` of grid line `line`: negative above the look's window. */
function lineIndex(shot: Snapshot, line: number): number {
  return line - shot.firstLine;
}

/** The grid line the cursor is on: what a Cursor keeps, whatever window the look took. */
export function cursorGridLine(shot: Snapshot): number {
  return shot.paneHistorySize + shot.cursorY;
}

/** The index in `shot.lines` of the cursor's line. */
function cursorIndex(shot: Snapshot): number {
  return lineIndex(shot, cursorGridLine(shot));
}

/** The line the cursor is on, whole and left of the cursor (where a prompt ends). */
export function cursorLine(shot: Snapshot): { whole: string; beforeCursor: string } {
  const whole = shot.lines[cursorIndex(shot)] ?? "";
  return { whole, beforeCursor: leftOfColumn(whole, shot.cursorX) };
}

export function cursorAt(shot: Snapshot): Cursor {
  const index = cursorIndex(shot);
  const prefix = leftOfColumn(shot.lines[index] ?? "", shot.cursorX);
  const before = shot.lines.slice(Math.max(0, index - ANCHOR_LINES), index);
  return {
    paneId: shot.paneId,
    panePid: shot.panePid,
    line: cursorGridLine(shot),
    column: prefix.length,
    anchor: [...before, prefix],
    alternate: shot.alternate,
    screen: shot.alternate ? visibleRows(shot).map(rowDigest) : [],
  };
}

function visibleRows(shot: Snapshot): string[] {
  return shot.lines.slice(shot.historySize);
}

/** FNV-1a over a row's UTF-16 units: tells a changed row from an unchanged one, nothing more. */
function rowDigest(row: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < row.length; i++) {
    hash = Math.imul(hash ^ row.charCodeAt(i), 0x01000193) >>> 0;
  }
  return hash;
}

function anchorMatches(lines: string[], line: number, anchor: string[]): boolean {
  const before = anchor.slice(0, -1);
  const first = line - before.length;
  if (first < 0 || line >= lines.length) return false;
  for (let i = 0; i < before.length; i++) {
    if (lines[first + i] !== before[i]) return false;
  }
  return lines[line].startsWith(anchor.at(-1) ?? "");
}

/**
 * The index in `shot.lines` of the cursor's line, up to index `end`; -1 when it is not there.
 * History only loses lines at its top (trimmed at its limit, cleared), so the line is at its
 * grid line or above it; one above the look's window is out of reach, as are the lines after
 * it that the window could not hold.
 */
function anchorIndex(shot: Snapshot, cursor: Cursor, end: number): number {
  for (let index = Math.min(lineIndex(shot, cursor.line), end); index >= 0; index--) {
    if (anchorMatches(shot.lines, index, cursor.anchor)) return index;
  }
  return -1;
}

export type Since = {
  /**
   * Lines from the cursor's line to the current cursor row, the first one whole; after a
   * redraw, the whole current screen.
   */
  lines: string[];
  /** Where on the first line the new text begins (the cursor's column); 0 when lines missed. */
  firstColumn: number;
  linesMissed: boolean;
  reason: "respawned" | "history_changed" | null;
  /** The alternate screen was switched or redrawn: `lines` is the current screen. */
  redraw: boolean;
  /** What a wait tests: the lines' new text (a redraw's: the rows that were not on screen). */
  arrived: string[];
};

/**
 * What arrived after `cursor`, located again if history was trimmed since. A cursor whose line
 * is older than the look's window missed lines: the answer is what the window holds.
 */
export function since(shot: Snapshot, cursor: Cursor): Since {
  const end = cursorIndex(shot);
  const all = shot.lines.slice(0, end + 1);
  const missed = (reason: Since["reason"]): Since => ({
    lines: all,
    firstColumn: 0,
    linesMissed: true,
    reason,
    redraw: false,
    arrived: all,
  });
  if (shot.panePid !== cursor.panePid) return missed("respawned");
  // The alternate screen has no history of its own, and the shell's is still beneath it.
  if (shot.alternate || cursor.alternate) {
    const screen = visibleRows(shot);
    const before = new Set(cursor.screen);
    const arrived = screen.filter((row) => !before.has(rowDigest(row)));
    const same = shot.alternate && cursor.alternate && screen.length === cursor.screen.length &&
      screen.every((row, i) => rowDigest(row) === cursor.screen[i]);
    return {
      lines: same ? [] : screen,
      firstColumn: 0,
      linesMissed: false,
      reason: null,
      redraw: !same,
      arrived,
    };
  }
  const found = anchorIndex(shot, cursor, end);
  if (found < 0) return missed("history_changed");
  const lines = shot.lines.slice(found, end + 1);
  return {
    lines,
    firstColumn: cursor.column,
    linesMissed: false,
    reason: null,
    redraw: false,
    arrived: [(lines[0] ?? "").slice(cursor.column), ...lines.slice(1)],
  };
}
