// send_keys' text split into send-keys commands that each fit what one tmux command holds (bytes
// and arguments), literal in every piece and in order, so any in-schema input is typed as given.
import assert from "node:assert/strict";
import { COMMAND_ARGUMENTS, COMMAND_BYTES, sendKeysLines, textPieces } from "./keystrokes.ts";

const encoder = new TextEncoder();
const packed = (line: string[]) =>
  line.reduce((sum, arg) => sum + encoder.encode(arg).length + 1, 0);

/** The text the literal pieces of `lines` type, in order. */
function typed(lines: string[][]): string {
  return lines.flat().filter((_, i, all) => all[i - 1] === "--").join("");
}

Deno.test("short input is one tmux command line, Enter included", () => {
  assert.deepEqual(sendKeysLines("%1", { literal: "ls" }, true), [
    ["send-keys", "-t", "%1", "-l", "--", "ls", ";", "send-keys", "-t", "%1", "Enter"],
  ]);
});

Deno.test("16,384 newlines, quotes or three-byte characters go as lines within tmux's limit", () => {
  for (const char of ["\n", "'", '"', ";", "\u20ac", "\u{1f600}"]) {
    const text = char.repeat(16384);
    const lines = sendKeysLines("%1", { literal: text }, true);
    assert.ok(lines.length > 1, `${JSON.stringify(char)} fits no single command`);
    for (const line of lines) {
      assert.ok(packed(line) <= COMMAND_BYTES, `a line of ${packed(line)} bytes`);
    }
    assert.equal(typed(lines), text, `${JSON.stringify(char)} arrives whole and in order`);
    assert.deepEqual(lines.at(-1)!.slice(-4), ["send-keys", "-t", "%1", "Enter"]);
  }
});

Deno.test("text is cut only between code points", () => {
  const pieces = textPieces("a\u{1f600}b", 4);
  assert.deepEqual(pieces, ["a", "\u{1f600}", "b"]);
});

Deno.test("thousands of key names go as lines of at most COMMAND_ARGUMENTS arguments", () => {
  const names = Array.from({ length: 5000 }, (_, i) => (i % 2 ? "a" : "Enter"));
  const lines = sendKeysLines("%1", { names }, false);
  assert.ok(lines.length > 5);
  for (const line of lines) assert.ok(line.length <= COMMAND_ARGUMENTS);
  const sent = lines.flatMap((line) => line.filter((_, i) => line[i - 1] === "--" || i > 4));
  assert.equal(sent.filter((name) => name === "a").length, 2500);
});

Deno.test("a key name ';' goes by its code, never as tmux's command separator", () => {
  assert.deepEqual(sendKeysLines("%1", { names: ["a", ";", "b"] }, false), [
    ["send-keys", "-t", "%1", "--", "a", "0x3b", "b"],
  ]);
});
