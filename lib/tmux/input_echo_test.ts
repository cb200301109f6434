// The echo of typed input, taken off what arrived, without tmux: only text that matches what was
// typed is taken, so the program's output always stays.
import assert from "node:assert/strict";
import { withoutEcho } from "./input_echo.ts";

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
