// Typed input is echoed: a shell or a REPL draws the line it reads where the cursor was. A wait
// for a command's output that tested that echo would end before the command ran (the typed
// `print(6*7)` contains `6*7`; `echo DONE` contains `DONE`). So a wait whose cursor was taken
// just before some text was typed (keys, a paste, a command to run) first takes the echo of
// that text off what arrived, and tests the rest. The echo begins at the cursor's column and may
// wrap over rows; each further typed line is echoed on its own row, after a continuation prompt
// (`... `, `> `). Only text that matches what was typed is taken off, so output is never lost;
// an echo the program changed (syntax colouring does not, completion may) is tested like output.
// A cursor keeps at most TYPED_KEPT characters of what was typed (a paste may be a mebibyte):
// a longer text is kept as its first and last lines, and everything between the echo of the
// first and the echo of the last is echo too, still arriving until the last lines show.

/** The most characters of typed text a cursor keeps. */
export const TYPED_KEPT = 2048;

/** The rows of the last typed lines that must show, one under another, to end a long echo. */
const TAIL_ROWS = 3;
/** The fewest characters of a wrapped last line a row must show to end a long echo. */
const TAIL_CHARACTERS = 16;

/**
 * Typed text longer than TYPED_KEPT as a cursor keeps it: its first whole lines and its last
 * whole lines, at most TYPED_KEPT / 2 characters each; a line longer than that alone is kept in
 * part (the head's first line from its start, the tail's last line to its end).
 */
export type ElidedTyped = {
  head: string[];
  /** The head's last line is the beginning of a longer line. */
  headInPart: boolean;
  tail: string[];
};

/** What a cursor keeps of typed text: all of it, or its ends. */
export type KeptTyped = string | ElidedTyped;

/** `typed` as a cursor keeps it: at most TYPED_KEPT characters of it. */
export function keptTyped(typed: string): KeptTyped {
  if (typed.length <= TYPED_KEPT) return typed;
  const lines = linesOf(typed);
  const half = TYPED_KEPT / 2;
  const head: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length > half) break;
    head.push(line);
    used += line.length;
  }
  const headInPart = head.length === 0;
  if (headInPart) head.push(lines[0].slice(0, half));
  const tail: string[] = [];
  used = 0;
  for (let n = lines.length - 1; n >= head.length; n--) {
    if (used + lines[n].length > half) break;
    tail.unshift(lines[n]);
    used += lines[n].length;
  }
  if (tail.length === 0) tail.push(lines.at(-1)!.slice(-half));
  return { head, headInPart, tail };
}

/** `arrived` (the first row from the cursor's column on) without the echo of `typed`. */
export function withoutEcho(arrived: string[], typed: KeptTyped): string[] {
  const rows = [...arrived];
  if (typeof typed === "string") return dropEmptied(rows, takeEcho(rows, linesOf(typed)).row);
  const head = takeEcho(rows, typed.head);
  if (!head.whole) return dropEmptied(rows, head.row);
  // The head ended inside a longer line: the rest of its row is that line going on.
  if (typed.headInPart) rows[head.row - 1] = "";
  const end = tailEnd(rows, head.row, typed.tail);
  // Until the last lines show, all that follows the head is the echo still arriving.
  for (let row = head.row; row < (end < 0 ? rows.length : end + 1); row++) rows[row] = "";
  return dropEmptied(rows, end < 0 ? rows.length : end + 1);
}

/** Typed text as lines, without the newline that ends it. */
function linesOf(typed: string): string[] {
  return typed.replace(/(\r\n|\r|\n)$/, "").split(/\r\n|\r|\n/);
}

/**
 * Takes the echo of `typedLines` off `rows` (in place), from the cursor on: the row after the
 * last it took, and whether every line was found whole.
 */
function takeEcho(rows: string[], typedLines: string[]): { row: number; whole: boolean } {
  let row = 0;
  for (const [n, line] of typedLines.entries()) {
    if (row >= rows.length) return { row, whole: false };
    if (n === 0) {
      // The first line starts at the cursor and wraps at the pane's edge.
      let rest = line.trimEnd();
      while (row < rows.length) {
        // A prompt's trailing space is not captured, so the first row may begin with it.
        const shown = row === 0 ? rows[row].trim() : rows[row].trimEnd();
        if (shown !== "" && shown.length < rest.length && rest.startsWith(shown)) {
          rest = rest.slice(shown.length).trimStart();
          rows[row] = "";
          row++;
          continue;
        }
        if (!shown.startsWith(rest)) return { row, whole: false };
        rows[row] = rows[row].slice(rows[row].indexOf(rest) + rest.length);
        row++;
        rest = "";
        break;
      }
      if (rest !== "") return { row, whole: false };
      continue;
    }
    // A further line sits after a continuation prompt on its own row.
    const shown = rows[row].trimEnd();
    const text = line.trimEnd();
    if (text === "" ? shown.length > 12 : !shown.endsWith(text)) return { row, whole: false };
    rows[row] = "";
    row++;
  }
  return { row, whole: true };
}

/**
 * The row at which the echo of a long text ends, at or after `from`: where its last lines show
 * one under another (the last TAIL_ROWS of them), or where a last line too long for a row shows
 * its end; -1 while they do not show yet.
 */
function tailEnd(rows: string[], from: number, tail: string[]): number {
  const last = tail.at(-1)!.trimEnd();
  const checked = Math.min(TAIL_ROWS, tail.length);
  for (let row = from; row < rows.length; row++) {
    const shown = rows[row].trimEnd();
    if (shown === "") continue;
    // A last line that wrapped: this row shows its end, and nothing else (with the rows above
    // it, when it shows fewer than TAIL_CHARACTERS).
    let ending = shown.trimStart();
    for (let above = row - 1; ending.length < TAIL_CHARACTERS && above >= from; above--) {
      ending = rows[above].trimEnd() + ending;
    }
    if (
      ending.length < last.length && last.endsWith(ending) &&
      ending.length >= Math.min(TAIL_CHARACTERS, last.length)
    ) return row;
    if (row - (checked - 1) < from) continue;
    const shows = (back: number) => {
      const text = tail[tail.length - 1 - back].trimEnd();
      const there = rows[row - back].trimEnd();
      return text === "" ? there.length <= 12 : there.endsWith(text);
    };
    if (Array.from({ length: checked }, (_, back) => back).every(shows)) return row;
  }
  return -1;
}

/** The rows with those before `upTo` that the echo emptied taken out. */
function dropEmptied(rows: string[], upTo: number): string[] {
  return rows.filter((text, index) => index >= upTo || text.trim() !== "");
}
