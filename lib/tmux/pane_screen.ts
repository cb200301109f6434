// What a pane shows right now, read in one tmux command line so that the screen's text, the
// cursor and the modes describe the same instant: the visible lines (capture-pane -p, always
// through a spawned client, whose stdout carries them as tmux wrote them), the cursor, whether
// the program switched to the alternate screen (full-screen programs: less, vim, top), the mode
// tmux has put the pane in (copy mode…), its size and its foreground command. The description
// is a fenced row (fenced_rows.ts), so a program's name cannot shift a field.
import { fencedRows } from "./fenced_rows.ts";
import { expandTabs } from "./captured_text.ts";
import { failed, notFound, tmuxCallSpawned, type TmuxOutcome } from "./targets.ts";
import type { TmuxClient } from "./tmux.ts";

/** The format fields a screen is described with, in parseScreen's order. */
export const SCREEN_FIELDS = [
  "#{pane_id}",
  "#{pane_pid}",
  "#{pane_dead}",
  "#{cursor_x}",
  "#{cursor_y}",
  "#{alternate_on}",
  "#{pane_mode}",
  "#{pane_width}",
  "#{pane_height}",
  "#{pane_current_command}",
];

export type ScreenFacts = {
  pane_id: string;
  pane_pid: number;
  dead: boolean;
  cursor_x: number;
  cursor_y: number;
  alternate_screen: boolean;
  /** tmux's name for the mode the pane is in (copy-mode, view-mode…), null in none. */
  pane_mode: string | null;
  width: number;
  height: number;
  current_command: string;
};

const count = (field: string) => /^\d+$/.test(field) ? Number(field) : NaN;

/** A screen's description as fencedRows read it; null when it does not read. */
export function parseScreen(f: string[]): ScreenFacts | null {
  const numbers = [f[1], f[3], f[4], f[7], f[8]].map(count);
  if (!/^%\d+$/.test(f[0]) || numbers.some(Number.isNaN)) return null;
  const [panePid, cursorX, cursorY, width, height] = numbers;
  return {
    pane_id: f[0],
    pane_pid: panePid,
    dead: f[2] === "1",
    cursor_x: cursorX,
    cursor_y: cursorY,
    alternate_screen: f[5] === "1",
    pane_mode: f[6] === "" ? null : f[6],
    width,
    height,
    current_command: f[9],
  };
}

const UNREADABLE_SCREEN = failed({ kind: "unreadable", what: "screen" });

/**
 * The screen of exactly `paneId` and its visible lines, top to bottom, one per row of the pane
 * (a blank row is ""), trailing spaces removed as tmux does.
 */
export async function readScreen(
  client: TmuxClient,
  paneId: string,
  signal?: AbortSignal,
): Promise<TmuxOutcome<{ facts: ScreenFacts; lines: string[] }>> {
  const fenced = fencedRows(SCREEN_FIELDS);
  const out = await tmuxCallSpawned(client, [
    ...["display-message", "-p", "-t", paneId, fenced.format],
    ...[";", "capture-pane", "-p", "-t", paneId],
  ], signal);
  if (!out.ok) return out.failure.kind === "not_found" ? failed(notFound(paneId)) : out;
  const read = fenced.parseFirst(out.value);
  const facts = read === null ? null : parseScreen(read.row);
  if (read === null || facts === null) return UNREADABLE_SCREEN;
  // tmux resolved exactly this pane, never another one.
  if (facts.pane_id !== paneId) return failed(notFound(paneId));
  const lines = read.rest.replace(/\n$/, "").split("\n").map(expandTabs);
  return { ok: true, value: { facts, lines } };
}
