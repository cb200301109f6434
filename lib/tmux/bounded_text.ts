// The most text a tool returns of a pane: the last lines within a count and a byte bound, and
// how much was cut, so a reply never grows with what the pane holds.

/** The lines a tool returns unless asked for another number (max_lines). */
export const DEFAULT_MAX_LINES = 1000;
/** The most lines a tool returns. */
export const MAX_LINES = 10000;
/** The most bytes of text a tool returns. */
export const MAX_TEXT_BYTES = 256 * 1024;

export type BoundedText = {
  text: string;
  /** "utf-8", or "utf-8-escaped" when the pane held bytes that are not UTF-8 (capture.ts). */
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
