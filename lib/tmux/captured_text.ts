// Captured text as the screen shows it: bytes that are not UTF-8 kept as `\xNN` (a capture a
// spawned client printed holds exactly what tmux wrote), a TAB expanded to the blanks it spans, and
// columns counted in terminal cells, wide characters as two.
import { decodeUtf8 } from "../util/utf8.ts";

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
export function cellWidth(char: string): number {
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
export function leftOfColumn(line: string, column: number): string {
  let cells = 0;
  let end = 0;
  for (const char of line) {
    if (cells >= column) break;
    cells += cellWidth(char);
    end += char.length;
  }
  return line.slice(0, end);
}
