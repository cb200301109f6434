// Looking at a pane: its position (history size, cursor, alternate screen, the foreground
// command) and its text in one tmux command line, so both describe the same instant. A look
// captures the screen and a bounded window of history above it, never the whole history; through
// the open control connection the text is the answer itself, else a spawned client prints it, as
// the bytes tmux wrote. No look makes a paste buffer in the person's tmux or needs a file. What a
// look means against an earlier one is since.ts's; what a tool returns of it, bounded_text.ts's.
import type { TmuxClient } from "./tmux.ts";
import { failed, notFound, tmuxCall, tmuxCallBytes, type TmuxOutcome } from "./targets.ts";
import { decodeCapture, expandTabs } from "./captured_text.ts";
import { MAX_LINES } from "./bounded_text.ts";
import { controlBlocks } from "./control_servers.ts";
import { randomHex } from "../util/ids.ts";

/** The lines above the cursor's line a cursor keeps, to find it again (since.ts). */
export const ANCHOR_LINES = 3;
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

/** tmux answered a look without the mark that ends its state line. */
const UNREADABLE = failed({ kind: "unreadable", what: "capture" });

/** The look before `then` (snapshotThen) could not be read, though `then` ran after it. */
const THEN_WITHOUT_CAPTURE = failed({ kind: "unseen_act" });

/**
 * The pane's state line: what `header` below reads, in the order it reads it, then `end` (a
 * spawned client's mark between it and the capture).
 */
function stateLine(paneId: string, end = ""): string[] {
  return [
    "display-message",
    "-p",
    "-t",
    paneId,
    "#{pane_id} #{pane_pid} #{pane_dead} #{history_size} #{cursor_x} #{cursor_y} " +
    `#{alternate_on} #{pane_current_command}${end}`,
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
 * them; either way the look is taken again by a spawned client (`lookSpawned`).
 */
export function snapshot(
  client: TmuxClient,
  paneId: string,
  signal?: AbortSignal,
  /** Capture at most this many history lines above the screen. */
  historyWindow = LOOK_HISTORY_LINES,
): Promise<TmuxOutcome<Snapshot>> {
  return look(client, paneId, historyWindow, [], signal);
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
  paneId: string,
  then: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<Snapshot>> {
  return look(client, paneId, ANCHOR_LINES, then, signal);
}

async function look(
  client: TmuxClient,
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
    looked = await lookSpawned(client, paneId, range, then, signal);
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
 * The look through a spawned client, which prints the state line, a mark made for this look, and
 * the capture, as the bytes tmux wrote (those that are not UTF-8 included); with `then`, the
 * line ends with it. The mark is random, so no pane's text or command name can forge it.
 */
async function lookSpawned(
  client: TmuxClient,
  paneId: string,
  range: string[],
  then: string[],
  signal?: AbortSignal,
): Promise<TmuxOutcome<Looked>> {
  const mark = `<tmux-mcp-${randomHex(8)}>`;
  const out = await tmuxCallBytes(client, [
    ...stateLine(paneId, mark),
    ";",
    "capture-pane",
    "-p",
    "-t",
    paneId,
    ...range,
    ...(then.length > 0 ? [";", ...then] : []),
  ], signal);
  if (!out.ok) return out;
  const printed = out.value;
  const end = markEnd(printed, new TextEncoder().encode(`${mark}\n`));
  if (end === null) return then.length > 0 ? THEN_WITHOUT_CAPTURE : UNREADABLE;
  const { text, escaped } = decodeCapture(printed.subarray(end));
  return {
    ok: true,
    value: {
      state: new TextDecoder().decode(printed.subarray(0, end - mark.length - 1)),
      lines: text.replace(/\n$/, "").split("\n").map(expandTabs),
      escaped,
    },
  };
}

/** Where the first `mark` in `bytes` ends; null when there is none. */
function markEnd(bytes: Uint8Array, mark: Uint8Array): number | null {
  search: for (let at = 0; at + mark.length <= bytes.length; at++) {
    for (let i = 0; i < mark.length; i++) if (bytes[at + i] !== mark[i]) continue search;
    return at + mark.length;
  }
  return null;
}
