// Captured text keeps every byte (what is not UTF-8 as `\xNN`) and reads as the screen shows
// it, a TAB as the blanks it spans, on every tmux version.
import assert from "node:assert/strict";
import { decodeCapture, expandTabs } from "./captured_text.ts";

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

Deno.test("a TAB in a capture (tmux 3.6 and newer) reads as the blanks older tmux gives", () => {
  assert.equal(expandTabs("a\tb"), "a       b");
  assert.equal(expandTabs("1234567\tx"), "1234567 x");
  assert.equal(expandTabs("12345678\tx"), "12345678        x");
  // Wide characters take two columns on the way to the stop; trailing blanks go, as tmux's do.
  assert.equal(expandTabs("日本\tx"), "日本    x");
  assert.equal(expandTabs("end\t"), "end");
  assert.equal(expandTabs("no tab  "), "no tab  ");
});
