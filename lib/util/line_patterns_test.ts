// The callers' regexes run on RE2JS: JavaScript's syntax is kept, what RE2 cannot do is refused
// by name, and a pattern that would backtrack in V8 matches in linear time.
import assert from "node:assert/strict";
import { type LineFinder, lineFinder, type PatternOptions } from "./line_patterns.ts";

async function finder(pattern: string, options: Partial<PatternOptions> = {}) {
  const find = await lineFinder(pattern, { regex: true, ignoreCase: false, ...options });
  assert.equal(typeof find, "function", `${pattern}: ${find}`);
  return find as LineFinder;
}

Deno.test("a regex keeps JavaScript's syntax: \\u escapes, named groups, classes", async () => {
  assert.deepEqual((await finder("\\u0041+"))("xAAy"), { index: 1, text: "AA" });
  assert.deepEqual((await finder("(?<n>\\d+)\\.\\d"))("v 12.5"), { index: 2, text: "12.5" });
  assert.deepEqual((await finder("[^]b"))("ab"), { index: 0, text: "ab" });
  assert.deepEqual((await finder("\\/x"))("a/x"), { index: 1, text: "/x" });
  assert.deepEqual((await finder("(?<=a)b"))("ab"), { index: 1, text: "b" });
});

Deno.test("^ and $ anchor the line; indexes count UTF-16 units as RegExp does", async () => {
  assert.equal((await finder("^b"))("ab"), null);
  assert.deepEqual((await finder("b+$"))("😀abb"), { index: 3, text: "bb" });
});

Deno.test("ignore_case applies to regexes and literal text", async () => {
  assert.deepEqual((await finder("^héllo", { ignoreCase: true }))("HÉLLO"), {
    index: 0,
    text: "HÉLLO",
  });
  const literal = await finder("a.b(", { regex: false, ignoreCase: true });
  assert.deepEqual(literal("x A.B( y"), { index: 2, text: "A.B(" });
  assert.equal(literal("axb("), null);
});

Deno.test("a catastrophic pattern is matched in linear time", async () => {
  // With RegExp, 30 more `a`s would take about a million times the 15-23 s that 44 took.
  const line = `${"a".repeat(74)}b`;
  assert.equal((await finder("^(a|aa)+$"))(line), null);
  assert.equal((await finder("^(a+)+$"))(line), null);
});

Deno.test("lookahead, backreferences and invalid regexes are refused", async () => {
  assert.equal(await lineFinder("a(?=b)", { regex: true, ignoreCase: false }), "unsupported");
  assert.equal(await lineFinder("(a)\\1", { regex: true, ignoreCase: false }), "unsupported");
  assert.equal(
    await lineFinder("(?<n>a)\\k<n>", { regex: true, ignoreCase: false }),
    "unsupported",
  );
  assert.equal(await lineFinder("(", { regex: true, ignoreCase: false }), "invalid");
  assert.equal(
    await lineFinder("\\\\k", { regex: true, ignoreCase: false }) instanceof Function,
    true,
  );
});
