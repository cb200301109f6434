// Looking at a pane: its position (history size, cursor, alternate screen, the foreground
// command) and its text in one tmux command line, so both describe the same instant. A look
// captures the screen and a bounded window of history above it, never the whole history; through
// the open control connection the text is the answer itself, else it comes back through a file
// lent from the server's private directory, which keeps every byte. What a look means against an
// earlier one is since.ts's; what a tool returns of it, bounded_text.ts's.
import type { TmuxClient } from "./tmux.ts";
import {
  failed,
  isNotAnswering,
  notFound,
  tmuxCall,
  tmuxCallSpawned,
  type TmuxOutcome,
} from "./targets.ts";
import { decodeCapture, expandTabs } from "./captured_text.ts";
import { MAX_LINES } from "./bounded_text.ts";
import { controlBlocks } from "./control_servers.ts";
import { randomHex } from "../util/ids.ts";
import { TempDirectoryError } from "../host/directory_problems.ts";
import type { TempFiles } from "../host/temp_files.ts";

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
