// The line a connection's next answer opens with after calls its client gave up on: each ending
// named once, the newest few only, and nothing when nothing was missed.
import assert from "node:assert/strict";
import { missedCalls } from "./missed_calls.ts";

const receipt = { run_id: "a".repeat(32) };

Deno.test("nothing missed, no line; a missed run is named with its ending, then forgotten", () => {
  const missed = missedCalls();
  assert.equal(missed.take(), null);
  missed.record("tmux_run", {
    ok: false,
    error: {
      code: "cancelled",
      message: "m",
      delivery: "possibly_sent",
      effects: {
        state: "known",
        authorization: receipt,
        completion: { state: "signaled", signal: 15 },
      },
    },
  }, 20.34);
  assert.equal(
    missed.take(),
    "note: your client cancelled or timed out a call whose answer it never took; they ended: " +
      `tmux_run after 20.3 s: error cancelled (delivery: possibly_sent), run ${receipt.run_id} ` +
      "signaled 15. tmux_capabilities.recent_runs keeps each tmux_run's receipt.\n",
  );
  assert.equal(missed.take(), null);
});

Deno.test("several endings are named in order; past four, the older are counted", () => {
  const missed = missedCalls();
  for (let i = 0; i < 6; i++) missed.record(`tool_${i}`, { ok: true, data: {} }, i);
  const line = missed.take() ?? "";
  assert.match(line, /^note: your client cancelled or timed out 4 calls \(and 2 earlier\)/);
  assert.match(line, /tool_2 after 2\.0 s: ok; tool_3 .*; tool_5 after 5\.0 s: ok\./);
  assert.doesNotMatch(line, /tool_1 /);
});
