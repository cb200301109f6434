// The one pause and the one poll: an abort ends a pause, a poll returns the first truthy value
// it sees or null once its limit has passed.
import assert from "node:assert/strict";
import { delay, pollUntil } from "./delay.ts";

Deno.test("an aborted signal ends a delay that would otherwise outlast the test", async () => {
  const controller = new AbortController();
  const paused = delay(3_600_000, controller.signal);
  controller.abort();
  await paused;
});

Deno.test("pollUntil returns the first truthy value, and null when none came in time", async () => {
  let looks = 0;
  assert.equal(await pollUntil(() => ++looks === 3 && "third", 10_000, 1), "third");
  assert.equal(looks, 3);
  assert.equal(await pollUntil(() => false, 0, 1), null);
});
