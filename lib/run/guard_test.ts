// The pure part of the commit point: the if-shell -F predicate. tmux 3.3's `#{&&:a,b}` takes
// exactly two operands, so four checks must nest; each compares one pane fact to the enrolled
// value. The verdict itself (nonce, command-alias) needs tmux and is tested in tests/.
import assert from "node:assert/strict";
import { guardPredicate } from "./guard.ts";

Deno.test("the predicate checks pane id, root pid and both dead fields, two operands per &&", () => {
  assert.equal(
    guardPredicate("%3", 4242),
    "#{&&:#{==:#{pane_id},%3},#{&&:#{==:#{pane_pid},4242},#{&&:#{==:#{pane_dead_status},}," +
      "#{==:#{pane_dead_signal},}}}}",
  );
});

Deno.test("the predicate embeds exactly the pane and pid it was given", () => {
  const predicate = guardPredicate("%12", 7);
  assert.ok(predicate.includes("#{==:#{pane_id},%12}"));
  assert.ok(predicate.includes("#{==:#{pane_pid},7}"));
  assert.ok(!predicate.includes("%3"));
});
