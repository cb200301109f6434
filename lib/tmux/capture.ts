// Reading what a pane shows, and what it showed since some earlier moment. tmux numbers lines
// only relative to a history that it trims and clears, so "since" is a position in the grid
// (history size + cursor row, and the cursor column) checked against the text just before it:
// when that text has moved we find it again, and when it is gone we say lines may be missed
// rather than guess. A full-screen program draws on the alternate screen, where positions mean
// nothing and the shell's scrollback is still underneath: across a switch, or while a program
// redraws there, "since" is the current screen, flagged as a redraw. Cursors are kept by the
// server (cursor_store.ts); a client holds only a handle. A look captures the screen and a
// bounded window of history above it, never the whole history, so a cursor names its grid
// line whatever window it was taken from, and a cursor older than a look's window has missed
// lines.
import type { TmuxClient } from "./tmux.ts";
import {
  failed,
  isNotAnswering,
  notFound,
  tmuxCall,
  tmuxCallSpawned,
  type TmuxOutcome,
} from "./targets.ts";
import { decodeUtf8 } from "../util/utf8.ts";
import { controlBlocks } from "./control_servers.ts";
import { randomHex } from "../util/ids.ts";
import { TempDirectoryError } from "../host/directory_problems.ts";
import type { TempFiles } from "../host/temp_files.ts";

export const DEFAULT_MAX_LINES = 1000;
export const MAX_LINES = 10000;
export const MAX_TEXT_BYTES = 256 * 1024;
const ANCHOR_LINES = 3;
/**
 * The history lines a look captures above the screen: as many as any tool returns, so what
 * arrived since a cursor fits unless more arrived than a reply could hold anyway. A look at the
 * whole history cost what the history holds (a look since a cursor in a 100,000-line pane took
 * 1.25 s), and on tmux before 3.6 a capture answered to a control client leaks in its server.
 */
export const LOOK_HISTORY_LINES = MAX_LINES;

export type Snapshot = {
  paneId: string;
  panePid: number;
  dead: boolean;
  /** The pane's foreground process name (tmux's pane_current_command). */
  currentCommand: string;
  /** All the history lines the pane holds above its screen (tmux's history_size). */
  paneHistorySize: number;
  /**
   * The history lines `lines` holds above the screen: the pane's last ones, at most the window
   * the look asked for. `lines[historySize + cursorY]` is the cursor's line.
   */
  historySize: number;
  /**
   * The grid line of `lines[0]`: grid lines count from the oldest history line the pane holds,
   * so `paneHistorySize + cursorY` is the cursor's, whatever window a look captured.
   */
  firstLine: number;
  cursorX: number;
  cursorY: number;
  lines: string[];
  /** True when tmux wrote bytes that are not UTF-8; they appear as `\xNN`, and `\` as `\\`. */
  escaped: boolean;
  /** True while a full-screen program has the alternate screen (tmux's alternate_on). */
  alternate: boolean;
};

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

/** tmux said it saved the capture, yet the file is empty though a byte can be written there. */
const EMPTY_CAPTURE = failed({ kind: "unreadable", what: "capture" });

/** The look before `then` (snapshotThen) saved no text, though `then` ran after it. */
const THEN_WITHOUT_CAPTURE = failed({ kind: "unseen_act" });

/** The pane's state line: what `header` below reads, in the order it reads it. */
function stateLine(paneId: string): string[] {
  return [
    "display-message",
    "-p",
    "-t",
    paneId,
    "#{pane_id} #{pane_pid} #{pane_dead} #{history_size} #{cursor_x} #{cursor_y} " +
    "#{alternate_on} #{pane_current_command}",
  ];
}

/** The capture's range: the screen and at most `historyWindow` history lines above it. */
function captureRange(historyWindow: number): string[] {
  return ["-S", `-${historyWindow}`, "-E", "-"];
}

type Looked = { state: string; lines: string[]; escaped: boolean };

/**
 * One tmux command line, so the position and the text describe the same instant. Through the
 * open control connection the text comes back as the answer itself (`capture-pane -p`): no file,
 * no buffer. A pane line that forges the answer's end is found out by the reader, which drops
 * the connection (control_lines.ts), and an answer with bytes that are not UTF-8 would have lost
 * them; either way the capture is taken again through a file (`captureThroughFile`).
 */
export function snapshot(
  client: TmuxClient,
  files: TempFiles,
  paneId: string,
  signal?: AbortSignal,
  /** Capture at most this many history lines above the screen. */
  historyWindow = LOOK_HISTORY_LINES,
): Promise<TmuxOutcome<Snapshot>> {
  return look(client, files, paneId, historyWindow, [], signal);
}

/**
 * A look, then `then` (a command line that acts on the pane, such as send-keys), the look being
 * the moment before it. Where the look goes through a spawned client (tmux without control mode,
 * where every call spawns one) both go as one tmux command list: one client instead of two, and
 * tmux stops a list at its first failing command, so a look that failed ran nothing after it.
 * Through the control connection the look is answered first and `then` goes after it. Ok: both
 * ran. The look is the cursor's (cursorAt): the screen and the anchor's lines above it, no more.
 */
export function snapshotThen(
  client: TmuxClient,
  files: TempFiles,
  paneId: string,
  then: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<Snapshot>> {
  return look(client, files, paneId, ANCHOR_LINES, then, signal);
}

async function look(
  client: TmuxClient,
  files: TempFiles,
  paneId: string,
  historyWindow: number,
  then: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<Snapshot>> {
  const range = captureRange(historyWindow);
  const blocks = await controlBlocks(
    client,
    [...stateLine(paneId), ";", "capture-pane", "-p", "-t", paneId, ...range],
    signal,
  );
  let looked: TmuxOutcome<Looked>;
  if (blocks?.length === 2 && blocks.every((block) => block.ok && block.exact)) {
    looked = {
      ok: true,
      value: {
        state: blocks[0].lines[0] ?? "",
        lines: blocks[1].lines.map(expandTabs),
        escaped: false,
      },
    };
    if (looked.ok && then.length > 0 && looked.value.state.split(" ")[0] === paneId) {
      const out = await tmuxCall(client, then, signal);
      if (!out.ok) return out;
    }
  } else {
    looked = await captureThroughFile(client, files, paneId, range, then, signal);
  }
  if (!looked.ok) return looked.failure.kind === "not_found" ? failed(notFound(paneId)) : looked;
  const { state, lines, escaped } = looked.value;
  const header = state.split(" ");
  if (header[0] !== paneId) return failed(notFound(paneId));
  const paneHistorySize = Number(header[3]);
  const historySize = Math.min(paneHistorySize, historyWindow);
  return {
    ok: true,
    value: {
      paneId,
      panePid: Number(header[1]),
      dead: header[2] === "1",
      currentCommand: header.slice(7).join(" "),
      paneHistorySize,
      historySize,
      firstLine: paneHistorySize - historySize,
      cursorX: Number(header[4]),
      cursorY: Number(header[5]),
      lines,
      escaped,
      alternate: header[6] === "1",
    },
  };
}

/**
 * The capture through a uniquely named buffer saved to a private file, lent by `files`
 * (lib/host/temp_files.ts): the file holds exactly the bytes tmux captured, those that are not
 * UTF-8 included, and never travels as control-mode output. With `then`, the line ends with it and goes
 * through a spawned client only, once: it is never taken again, since `then` may have run.
 */
async function captureThroughFile(
  client: TmuxClient,
  files: TempFiles,
  paneId: string,
  range: string[],
  then: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<Looked>> {
  const buffer = `tmux-mcp-${randomHex(8)}`;
  const line = (file: string) => [
    ...stateLine(paneId),
    ";",
    "capture-pane",
    "-b",
    buffer,
    "-t",
    paneId,
    ...range,
    ";",
    "save-buffer",
    "-b",
    buffer,
    file,
    ";",
    "delete-buffer",
    "-b",
    buffer,
    ...(then.length > 0 ? [";", ...then] : []),
  ];
  let looked;
  try {
    looked = await files.lend(async (file) => {
      if (then.length > 0) {
        const out = await tmuxCallSpawned(client, line(file), signal);
        const captured = out.ok ? await files.read(file) : new Uint8Array();
        // tmux ran `then` after saving the capture: an empty file now can only be tmux's fault.
        return { out: out.ok && captured.length === 0 ? THEN_WITHOUT_CAPTURE : out, captured };
      }
      let out = await tmuxCall(client, line(file), signal);
      let captured = out.ok ? await files.read(file) : new Uint8Array();
      // A server that did not answer would not answer the steps below either.
      if (isNotAnswering(out)) return { out, captured };
      // Through a control connection the tmux server writes FILE itself. One that sees another
      // /tmp than we do (another mount namespace) fails, or writes its own file and leaves ours
      // empty, though a capture always holds a line. A spawned client writes FILE in our view.
      if (!out.ok ? out.failure.kind !== "not_found" : captured.length === 0) {
        await tmuxCallSpawned(client, ["delete-buffer", "-b", buffer]).catch(() => {});
        out = await tmuxCallSpawned(client, line(file), signal);
        captured = out.ok ? await files.read(file) : new Uint8Array();
      }
      if (isNotAnswering(out)) return { out, captured };
      // A line that failed after the capture leaves its buffer: take it away.
      if (!out.ok) await tmuxCallSpawned(client, ["delete-buffer", "-b", buffer]).catch(() => {});
      // Still nothing, or a failure to write: a full or read-only directory says so itself.
      const written = out.ok ? captured.length > 0 : out.failure.kind !== "tmux_failed";
      if (!written) {
        const why = await files.whyUnwritable(file);
        if (why) throw why;
        if (out.ok) return { out: EMPTY_CAPTURE, captured };
      }
      return { out, captured };
    });
  } catch (error) {
    if (error instanceof TempDirectoryError) {
      return failed({ kind: "directory", purpose: "capture", error });
    }
    throw error;
  }
  const { out, captured } = looked;
  if (!out.ok) return out;
  const { text, escaped } = decodeCapture(captured);
  return {
    ok: true,
    value: {
      state: out.value.replace(/\n$/, ""),
      lines: text.replace(/\n$/, "").split("\n").map(expandTabs),
      escaped,
    },
  };
}

/** UTF-8 as is; otherwise every byte that is not part of valid UTF-8 becomes `\xNN`. */
export function decodeCapture(bytes: Uint8Array): { text: string; escaped: boolean } {
  const whole = decodeUtf8(bytes);
  if (whole !== null) return { text: whole, escaped: false };
  let text = "";
  let i = 0;
  while (i < bytes.length) {
    const length = bytes[i] < 0x80 ? 1 : bytes[i] >= 0xf0 ? 4 : bytes[i] >= 0xe0 ? 3 : 2;
    const char = decodeUtf8(bytes.subarray(i, i + length));
    if (char === null) {
      text += `\\x${bytes[i].toString(16).padStart(2, "0")}`;
      i += 1;
    } else {
      text += char === "\\" ? "\\\\" : char;
      i += length;
    }
  }
  return { text, escaped: true };
}

/**
 * A captured line as the screen shows it. tmux 3.6 and newer capture a tab as a TAB character
 * (fdbc6cdea, GitHub issue 4201), older ones as the blank cells it spans; a capture here
 * expands a TAB to the spaces that reach the next tab stop (every eighth column, tmux's
 * default) and drops trailing blanks as tmux does, so it reads the same on every version and
 * its columns are the screen's.
 */
export function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let expanded = "";
  let column = 0;
  for (const char of line) {
    if (char === "\t") {
      const stop = (Math.floor(column / 8) + 1) * 8;
      expanded += " ".repeat(stop - column);
      column = stop;
    } else {
      expanded += char;
      column += cellWidth(char);
    }
  }
  return expanded.replace(/ +$/, "");
}

/** Terminal cells taken by a character: wide East Asian and emoji take two. */
function cellWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (
    (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd)
  ) return 2;
  return 1;
}

/** The part of `line` left of terminal column `column`. */
function leftOfColumn(line: string, column: number): string {
  let cells = 0;
  let end = 0;
  for (const char of line) {
    if (cells >= column) break;
    cells += cellWidth(char);
    end += char.length;
  }
  return line.slice(0, end);
}

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

export type BoundedText = {
  text: string;
  /** "utf-8", or "utf-8-escaped" when the pane held bytes that are not UTF-8 (see Snapshot). */
  encoding: "utf-8" | "utf-8-escaped";
  truncated_lines: number;
  truncated_bytes: number;
};

/** Keeps the tail within `maxLines` and MAX_TEXT_BYTES, and says how much it cut. */
export function bounded(lines: string[], maxLines: number, escaped = false): BoundedText {
  let kept = lines;
  while (kept.length > 1 && kept.at(-1) === "") kept = kept.slice(0, -1);
  const cutLines = Math.max(0, kept.length - maxLines);
  kept = kept.slice(cutLines);
  let text = kept.join("\n");
  const bytes = new TextEncoder().encode(text);
  let cutBytes = 0;
  if (bytes.length > MAX_TEXT_BYTES) {
    cutBytes = bytes.length - MAX_TEXT_BYTES;
    while (cutBytes < bytes.length && (bytes[cutBytes] & 0xc0) === 0x80) cutBytes++;
    text = new TextDecoder().decode(bytes.subarray(cutBytes));
  }
  return {
    text,
    encoding: escaped ? "utf-8-escaped" : "utf-8",
    truncated_lines: cutLines,
    truncated_bytes: cutBytes,
  };
}
