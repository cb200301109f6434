// Rows of a tmux format, read back exactly. tmux prints each field of a `-F` format as it is,
// and some fields hold whatever a person or a program chose: a working directory may contain
// newlines and tabs, and so may a program's name. Split on "\n" and "\t", a directory named
// "x\n%99\tsudo…" adds a pane that does not exist, or shifts every field after it. So every
// row and field is fenced by marks made of a nonce drawn for this one read, which no name can
// hold because nobody knows it in advance, and a reply that is not exactly such rows is refused.
import { randomHex } from "../util/ids.ts";

export type FencedRows = {
  /** The format to give tmux (`-F`, or display-message's), one row per object. */
  format: string;
  /** Each row's fields, in order; null when `stdout` is not exactly fenced rows. */
  parse: (stdout: string) => string[][] | null;
  /**
   * One row, then whatever a later command of the same tmux line printed: null when `stdout`
   * does not start with exactly one fenced row.
   */
  parseFirst: (stdout: string) => { row: string[]; rest: string } | null;
};

export function fencedRows(fields: string[], nonce: string = randomHex(8)): FencedRows {
  const start = `<${nonce}<`;
  const between = `|${nonce}|`;
  const end = `>${nonce}>`;
  const parse = (stdout: string) => {
    const pieces = stdout.split(`${end}\n`);
    if (pieces.pop() !== "") return null;
    const rows: string[][] = [];
    for (const piece of pieces) {
      if (!piece.startsWith(start)) return null;
      const row = piece.slice(start.length).split(between);
      if (row.length !== fields.length) return null;
      rows.push(row);
    }
    return rows;
  };
  return {
    format: start + fields.join(between) + end,
    parse,
    parseFirst: (stdout) => {
      const cut = stdout.indexOf(`${end}\n`);
      if (cut < 0) return null;
      const rows = parse(stdout.slice(0, cut + end.length + 1));
      return rows?.length === 1 ? { row: rows[0], rest: stdout.slice(cut + end.length + 1) } : null;
    },
  };
}
