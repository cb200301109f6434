// The version table read without tmux: what each release `tmux -V` names gets.
import assert from "node:assert/strict";
import { behaviours, parseTmuxVersion } from "./versions.ts";

const of = (text: string, choice?: "auto" | "always" | "never") =>
  behaviours(parseTmuxVersion(text), choice);

Deno.test("tmux -V's answers are placed as releases; a development build as the one it leads to", () => {
  assert.equal(parseTmuxVersion("tmux 3.3a\n").release, 303);
  assert.equal(parseTmuxVersion("tmux 3.6").release, 306);
  assert.equal(parseTmuxVersion("tmux next-3.8").release, 308);
  assert.equal(parseTmuxVersion("tmux master").release, Number.MAX_SAFE_INTEGER);
  assert.equal(parseTmuxVersion("tmux openbsd-x").release, null);
});

Deno.test("control mode only from 3.7 unless chosen; never when refused", () => {
  for (const old of ["tmux 3.1c", "tmux 3.3a", "tmux 3.4", "tmux 3.5a", "tmux 3.6"]) {
    assert.equal(of(old).controlMode, false, old);
    assert.equal(of(old, "always").controlMode, true, old);
  }
  for (const safe of ["tmux 3.7c", "tmux next-3.8", "tmux master"]) {
    assert.equal(of(safe).controlMode, true, safe);
    assert.equal(of(safe, "never").controlMode, false, safe);
  }
  // A version nobody can place gets the careful answer.
  assert.equal(of("tmux openbsd-x").controlMode, false);
  assert.equal(behaviours(null).controlMode, false);
});

Deno.test("read-only, paste -S, control captures and tmux_run follow the releases that changed them", () => {
  assert.deepEqual(of("tmux 3.5a").attachFlags, ["ignore-size", "read-only"]);
  assert.deepEqual(of("tmux 3.7c").attachFlags, ["ignore-size"]);
  assert.deepEqual(of("tmux 3.6").pasteVerbatimFlags, []);
  assert.deepEqual(of("tmux 3.7c").pasteVerbatimFlags, ["-S"]);
  assert.equal(of("tmux 3.5a").capturePrintsToControl, false);
  assert.equal(of("tmux 3.6").capturePrintsToControl, true);
  assert.equal(of("tmux 3.1c").tmuxRun, false);
  assert.equal(of("tmux 3.3a").tmuxRun, true);
});
