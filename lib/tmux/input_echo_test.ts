// The echo of typed input, taken off what arrived, without tmux: only text that matches what was
// typed is taken, so the program's output always stays.
import assert from "node:assert/strict";
import { type KeptTyped, keptTyped, TYPED_KEPT, withoutEcho } from "./input_echo.ts";

Deno.test("the echoed line is taken off and the output stays", () => {
  assert.deepEqual(withoutEcho(["print(6*7)", "42", ">>> "], "print(6*7)"), ["42", ">>> "]);
});

Deno.test("the prompt's space before the cursor, which the capture dropped, is no obstacle", () => {
  assert.deepEqual(withoutEcho([" print(6*7)", "42"], "print(6*7)"), ["42"]);
});

Deno.test("an echo that wrapped over rows is taken off whole", () => {
  assert.deepEqual(withoutEcho(["echo one two", "three four", "out"], "echo one two three four"), [
    "out",
  ]);
});

Deno.test("an echo drawn only in part so far is taken off too", () => {
  assert.deepEqual(withoutEcho(["print(6"], "print(6*7)"), []);
});

Deno.test("text after the echo on its row stays", () => {
  assert.deepEqual(withoutEcho(["ls   right-prompt"], "ls"), ["   right-prompt"]);
});

Deno.test("further typed lines are taken off after their continuation prompt", () => {
  assert.deepEqual(
    withoutEcho(
      ["for i in 1, 2:", "...     print(i*7)", "... ", "7", "14"],
      "for i in 1, 2:\n    print(i*7)\n\n",
    ),
    ["7", "14"],
  );
});

Deno.test("output that differs from the typed text is never taken off", () => {
  assert.deepEqual(withoutEcho(["42", "print(6*7)"], "print(6*7)"), ["42", "print(6*7)"]);
  assert.deepEqual(withoutEcho(["", "x"], "ls"), ["", "x"]);
});

/** A script of `count` numbered lines, about `count` * 30 characters. */
function script(count: number): string {
  return Array.from({ length: count }, (_, n) => `echo "line ${n} of the script"`).join("\n");
}

/** How many characters of typed text a kept value holds. */
function keptLength(kept: KeptTyped): number {
  if (typeof kept === "string") return kept.length;
  return [...kept.head, ...kept.tail].reduce((sum, line) => sum + line.length, 0);
}

Deno.test("a cursor keeps at most TYPED_KEPT characters of a 1 MiB paste", () => {
  const mebibyte = "x".repeat(1024 * 1024);
  assert.equal(keptLength(keptTyped(mebibyte)), TYPED_KEPT);
  const lines = script(40_000);
  assert.ok(lines.length > 1024 * 1024);
  assert.ok(keptLength(keptTyped(lines)) <= TYPED_KEPT);
  assert.equal(keptTyped("short"), "short");
});

Deno.test("a long paste's echo is taken off whole, and the output after it stays", () => {
  const typed = script(2000);
  const echo = typed.split("\n");
  const kept = keptTyped(typed);
  assert.notEqual(typeof kept, "string");
  // A middle line of the echo says what a wait may be waiting for: it is not output.
  assert.deepEqual(withoutEcho([...echo, "line 1000 of the script", "$ "], kept), [
    "line 1000 of the script",
    "$ ",
  ]);
  // While the echo is still arriving, nothing of it counts.
  assert.deepEqual(withoutEcho(echo.slice(0, 1500), kept), []);
  // The whole text would have said the same.
  assert.deepEqual(withoutEcho([...echo, "out"], typed), ["out"]);
});

Deno.test("a long single line's echo, wrapped over rows, is taken off whole", () => {
  const typed = Array.from({ length: 5000 }, (_, n) => `w${n}`).join(",");
  const rows = typed.match(/.{1,80}/g)!;
  const kept = keptTyped(typed);
  assert.deepEqual(withoutEcho([...rows, "done", "$ "], kept), ["done", "$ "]);
  assert.deepEqual(withoutEcho(rows.slice(0, 100), kept), []);
});

Deno.test("a long paste whose head the program did not echo as typed is output", () => {
  const typed = script(2000);
  const kept = keptTyped(typed);
  assert.deepEqual(withoutEcho(["error: no such command", "$ "], kept), [
    "error: no such command",
    "$ ",
  ]);
});
