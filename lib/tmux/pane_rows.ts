// A pane as tmux lists it, read from fenced rows (fenced_rows.ts) into typed facts: ids checked
// against their patterns, numbers and flags converted, and a listing refused whole when any of
// its rows does not read, so a name can never shift a field or forge a pane.

/** What tmux says about one pane; the tools that list panes add what this server knows. */
export type PaneFacts = {
  pane_id: string;
  pane_pid: number;
  current_command: string;
  session_id: string;
  window_id: string;
  pane_index: number;
  active: boolean;
  dead: boolean;
  width: number;
  height: number;
  current_path: string;
  title: string;
  session_name: string;
  window_name: string;
};

/** The format fields a pane row is read with, in parsePane's order. */
export const PANE_FIELDS = [
  "#{pane_id}",
  "#{pane_pid}",
  "#{pane_current_command}",
  "#{session_id}",
  "#{window_id}",
  "#{pane_index}",
  "#{pane_active}",
  "#{pane_dead}",
  "#{pane_width}",
  "#{pane_height}",
  "#{pane_current_path}",
  "#{pane_title}",
  "#{session_name}",
  "#{window_name}",
];

/** A pane's fields as fencedRows read them; null when an id is not one. */
export function parsePane(f: string[]): PaneFacts | null {
  if (!/^%\d+$/.test(f[0]) || !/^\$\d+$/.test(f[3]) || !/^@\d+$/.test(f[4])) return null;
  return {
    pane_id: f[0],
    pane_pid: Number(f[1]) || 0,
    current_command: f[2],
    session_id: f[3],
    window_id: f[4],
    pane_index: Number(f[5]),
    active: f[6] === "1",
    dead: f[7] === "1",
    width: Number(f[8]),
    height: Number(f[9]),
    current_path: f[10],
    title: f[11],
    session_name: f[12],
    window_name: f[13],
  };
}

/** Every row of a fenced listing parsed, or null when one of them does not parse. */
export function parseAll<T>(
  rows: string[][] | null,
  parse: (fields: string[]) => T | null,
): T[] | null {
  const parsed: T[] = [];
  for (const row of rows ?? []) {
    const item = parse(row);
    if (item === null) return null;
    parsed.push(item);
  }
  return rows && parsed;
}
