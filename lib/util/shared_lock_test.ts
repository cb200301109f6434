// The shared lock's order: sharers together, an exclusive holder alone and ahead of later
// sharers, the sharers that waited ahead of the next exclusive holder, and an abort that takes
// a waiting sharer out of the queue.
import assert from "node:assert/strict";
import { SharedLock } from "./shared_lock.ts";

/** Whether a promise has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

Deno.test("sharers share; an exclusive holder waits for them and keeps later sharers out", async () => {
  const lock = new SharedLock();
  const first = await lock.shared();
  const second = await lock.shared();
  const alone = lock.alone();
  assert.equal(await settled(alone), false, "exclusive granted while the lock is shared");
  const late = lock.shared();
  first();
  assert.equal(await settled(alone), false, "exclusive granted while one sharer remains");
  second();
  const release = await alone;
  assert.equal(await settled(late), false, "a later sharer ran beside the exclusive holder");
  release();
  (await late)();
  assert.ok(lock.idle);
});

Deno.test("the sharers that waited go before the next exclusive holder", async () => {
  const lock = new SharedLock();
  const firstAlone = await lock.alone();
  const sharer = lock.shared();
  const secondAlone = lock.alone();
  firstAlone();
  const shared = await sharer;
  assert.equal(await settled(secondAlone), false, "the second exclusive holder jumped the queue");
  shared();
  shared();
  (await secondAlone)();
  assert.ok(lock.idle, "a second release counted twice");
});

Deno.test("a waiting sharer whose signal aborts leaves the queue with the signal's reason", async () => {
  const lock = new SharedLock();
  const alone = await lock.alone();
  const controller = new AbortController();
  const waiting = lock.shared(controller.signal);
  controller.abort(new Error("gave up"));
  await assert.rejects(waiting, /gave up/);
  alone();
  assert.ok(lock.idle, "the aborted sharer still holds or waits");
});
