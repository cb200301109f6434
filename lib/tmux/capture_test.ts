// Capture cursors without tmux: a cursor names a position in the grid plus the text just
// before it, so "since" finds that text again after history moved, says lines may be missed
// when it cannot, and never trusts a cursor it did not write. Decoding keeps every byte.
import assert from "node:assert/strict";
import {
  bounded,
  type Cursor,
  cursorAt,
  decodeCapture,
  decodeCursor,
  encodeCursor,
  MAX_TEXT_BYTES,
  since,
  type Snapshot,
} from "./capture.ts";

/** A pane whose cursor sits on the last line of `lines`, `column` cells in, no rows below. */
function screen(lines: string[], column: number, extra: Partial<Snapshot> = {}): Snapshot {
  return {
    paneId: "%3",
    panePid: 100,
    dead: false,
    currentCommand: "zsh",
    historySize: lines.length - 1,
    cursorX: column,
    cursorY: 0,
    lines,
    escaped: false,
    ...extra,
  };
}

const bytes = (...values: number[]) => new Uint8Array(values);

Deno.test("valid UTF-8 decodes as is, backslashes untouched", () => {
  assert.deepEqual(decodeCapture(new TextEncoder().encode("a\\b é ✓ 🙂\n")), {
    text: "a\\b é ✓ 🙂\n",
    escaped: false,
  });
});

Deno.test("bytes that are not UTF-8 become \\xNN and a backslash becomes \\\\", () => {
  assert.deepEqual(decodeCapture(bytes(0x61, 0xff, 0x5c, 0xc3, 0xa9, 0x80, 0x62)), {
    text: "a\\xff\\\\é\\x80b",
    escaped: true,
  });
});

Deno.test("a multi-byte character cut off at the end is escaped byte by byte", () => {
  assert.deepEqual(decodeCapture(bytes(0x41, 0xe2, 0x9c)), { text: "A\\xe2\\x9c", escaped: true });
});

Deno.test("a cursor records its grid line, its column and the text before it", () => {
  const cursor = cursorAt(screen(["one", "two", "three", "$ make"], 2));
  assert.deepEqual(cursor, {
    paneId: "%3",
    panePid: 100,
    line: 3,
    column: 2,
    anchor: ["one", "two", "three", "$ "],
  });
});

Deno.test("the cursor column counts terminal cells, wide characters as two", () => {
  assert.deepEqual(cursorAt(screen(["日本x"], 4)).anchor, ["日本"]);
  assert.equal(cursorAt(screen(["日本x"], 4)).column, 2);
  assert.deepEqual(cursorAt(screen(["🙂ab"], 3)).anchor, ["🙂a"]);
  assert.equal(cursorAt(screen(["🙂ab"], 3)).column, 3);
});

Deno.test("the anchor keeps at most three lines before the cursor line", () => {
  const cursor = cursorAt(screen(["0", "1", "2", "3", "4", "$ "], 2));
  assert.deepEqual(cursor.anchor, ["2", "3", "4", "$ "]);
});

Deno.test("since returns the cursor's whole line onwards, and the column where new text starts", () => {
  const cursor = cursorAt(screen(["a", "b", "$ "], 2));
  const later = screen(["a", "b", "$ make", "built", "$ "], 2);
  assert.deepEqual(since(later, cursor), {
    lines: ["$ make", "built", "$ "],
    firstColumn: 2,
    linesMissed: false,
    reason: null,
  });
});

Deno.test("since with nothing new returns the cursor line, nothing past its column", () => {
  const first = screen(["a", "$ "], 2);
  assert.deepEqual(since(first, cursorAt(first)), {
    lines: ["$ "],
    firstColumn: 2,
    linesMissed: false,
    reason: null,
  });
});

Deno.test("since finds the anchor again after history was trimmed", () => {
  const cursor = cursorAt(screen(["0", "1", "2", "a", "b", "$ "], 2));
  const trimmed = screen(["2", "a", "b", "$ make", "out", "$ "], 2);
  assert.deepEqual(since(trimmed, cursor), {
    lines: ["$ make", "out", "$ "],
    firstColumn: 2,
    linesMissed: false,
    reason: null,
  });
});

Deno.test("since says lines may be missed when the anchor is gone", () => {
  const cursor = cursorAt(screen(["a", "b", "c", "$ "], 2));
  const cleared = screen(["$ clear", "new"], 3);
  assert.deepEqual(since(cleared, cursor), {
    lines: ["$ clear", "new"],
    firstColumn: 0,
    linesMissed: true,
    reason: "history_changed",
  });
});

Deno.test("since says the pane was respawned when its root process changed", () => {
  const cursor = cursorAt(screen(["a", "$ "], 2));
  const respawned = screen(["a", "$ "], 2, { panePid: 101 });
  assert.deepEqual(since(respawned, cursor), {
    lines: ["a", "$ "],
    firstColumn: 0,
    linesMissed: true,
    reason: "respawned",
  });
});

Deno.test("since stops at the cursor row, not at the blank rows below it", () => {
  const cursor = cursorAt(screen(["$ "], 2));
  const later = screen(["$ ls", "x", "$ ", "", ""], 2, { historySize: 0, cursorY: 2 });
  assert.deepEqual(since(later, cursor).lines, ["$ ls", "x", "$ "]);
});

Deno.test("a cursor round-trips through its c1. text form", () => {
  const cursor: Cursor = cursorAt(screen(["é", "日本", "\\x00 ✓"], 2));
  const text = encodeCursor(cursor);
  assert.match(text, /^c1\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodeCursor(text), cursor);
});

Deno.test("a cursor text that was not written by encodeCursor is refused", () => {
  const good: Cursor = { paneId: "%1", panePid: 5, line: 0, column: 0, anchor: [""] };
  const encode = (value: unknown) =>
    "c1." +
    new TextEncoder().encode(JSON.stringify(value)).toBase64({
      alphabet: "base64url",
      omitPadding: true,
    });
  assert.deepEqual(decodeCursor(encode(good)), good);
  for (
    const text of [
      "",
      "c2." + encodeCursor(good).slice(3),
      "c1.",
      "c1.***",
      "c1." + new TextEncoder().encode("not json").toBase64({ alphabet: "base64url" }),
      "c1." + bytes(0xff, 0xfe).toBase64({ alphabet: "base64url" }),
      encode(null),
      encode([good]),
      encode({ ...good, paneId: "1" }),
      encode({ ...good, paneId: "%1;kill-server" }),
      encode({ ...good, panePid: "5" }),
      encode({ ...good, line: -1 }),
      encode({ ...good, line: 1.5 }),
      encode({ ...good, column: -1 }),
      encode({ ...good, anchor: [] }),
      encode({ ...good, anchor: ["a", "b", "c", "d", "e"] }),
      encode({ ...good, anchor: ["a", 1] }),
      encode({ ...good, anchor: "a" }),
    ]
  ) {
    assert.equal(decodeCursor(text), null, text);
  }
});

Deno.test("a decoded cursor carries only the cursor's fields", () => {
  const text = "c1." +
    new TextEncoder().encode(JSON.stringify({
      paneId: "%1",
      panePid: 5,
      line: 0,
      column: 0,
      anchor: [""],
      extra: "x",
    })).toBase64({ alphabet: "base64url", omitPadding: true });
  assert.deepEqual(Object.keys(decodeCursor(text) ?? {}).sort(), [
    "anchor",
    "column",
    "line",
    "paneId",
    "panePid",
  ]);
});

Deno.test("bounded drops trailing blank lines but keeps one line", () => {
  assert.deepEqual(bounded(["a", "", ""], 10), {
    text: "a",
    encoding: "utf-8",
    truncated_lines: 0,
    truncated_bytes: 0,
  });
  assert.equal(bounded(["", ""], 10).text, "");
});

Deno.test("bounded keeps the last maxLines lines and counts the rest", () => {
  assert.deepEqual(bounded(["1", "2", "3", ""], 2), {
    text: "2\n3",
    encoding: "utf-8",
    truncated_lines: 1,
    truncated_bytes: 0,
  });
});

Deno.test("bounded cuts bytes from the front on a character boundary", () => {
  const half = MAX_TEXT_BYTES / 2;
  const result = bounded(["é".repeat(half) + "a"], 10);
  assert.equal(result.truncated_bytes, 2);
  assert.equal(result.text, "é".repeat(half - 1) + "a");
  assert.ok(new TextEncoder().encode(result.text).length <= MAX_TEXT_BYTES);
  const exact = bounded(["a".repeat(MAX_TEXT_BYTES)], 10);
  assert.equal(exact.truncated_bytes, 0);
});

Deno.test("bounded reports escaped text as utf-8-escaped", () => {
  assert.equal(bounded(["\\xff"], 10, true).encoding, "utf-8-escaped");
});
