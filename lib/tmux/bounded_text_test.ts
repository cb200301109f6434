// What a tool returns of a pane's lines: the tail within the line and byte bounds, with what
// was cut counted, never half a character.
import assert from "node:assert/strict";
import { bounded, MAX_TEXT_BYTES } from "./bounded_text.ts";

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
