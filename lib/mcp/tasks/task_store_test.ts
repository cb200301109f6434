// The tasks' state machine without a server: working to one terminal state, the TTL and the
// 60 s kept after a run ends, the 64-task bound, and the forgotten ids it still explains.
import assert from "node:assert/strict";
import type { CallToolResult } from "../../deps.ts";
import {
  FORGOTTEN_IDS_REMEMBERED,
  KEPT_AFTER_END_MS,
  TaskAlreadyFinished,
  TaskStore,
  TaskStoreFull,
} from "./task_store.ts";

const OK: CallToolResult = { content: [{ type: "text", text: "{}" }], isError: false };
const BAD: CallToolResult = { content: [{ type: "text", text: "{}" }], isError: true };

/** A run the test ends by hand, and whose signal it can read. */
function manualRun() {
  const { promise, resolve, reject } = Promise.withResolvers<CallToolResult>();
  let signal: AbortSignal | null = null;
  return {
    run: (given: AbortSignal) => {
      signal = given;
      return promise;
    },
    resolve,
    reject,
    signal: () => signal,
  };
}

/** A run that ends (with a cancelled-looking result) only when its signal aborts. */
function untilAborted(signal: AbortSignal): Promise<CallToolResult> {
  if (signal.aborted) return Promise.resolve(BAD);
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(BAD)));
}

Deno.test("a task is working until its run returns, then completed with the run's result", async () => {
  const store = new TaskStore();
  const manual = manualRun();
  const { taskId } = store.start(manual.run);
  assert.equal(store.get(taskId)?.status, "working");
  const waiting = store.outcome(taskId);
  manual.resolve(OK);
  assert.deepEqual(await waiting, { kind: "result", result: OK });
  assert.equal(store.get(taskId)?.status, "completed");
});

Deno.test("a result with isError completes the task; a thrown error fails it with its code", async () => {
  const store = new TaskStore();
  const refused = store.start(() => Promise.resolve(BAD));
  await store.outcome(refused.taskId);
  assert.equal(store.get(refused.taskId)?.status, "completed");
  const throwing = store.start(() =>
    Promise.reject(Object.assign(new Error("no"), { code: -32602 }))
  );
  assert.deepEqual(await store.outcome(throwing.taskId), {
    kind: "error",
    code: -32602,
    message: "no",
  });
  assert.equal(store.get(throwing.taskId)?.status, "failed");
});

Deno.test("cancel aborts the run, reads cancelled, and stays cancelled when the run returns", async () => {
  const store = new TaskStore();
  const manual = manualRun();
  const { taskId } = store.start(manual.run);
  await Promise.resolve();
  assert.equal(store.cancel(taskId)?.status, "cancelled");
  assert.equal(manual.signal()?.aborted, true);
  manual.resolve(BAD);
  assert.deepEqual(await store.outcome(taskId), { kind: "result", result: BAD });
  assert.equal(store.get(taskId)?.status, "cancelled");
});

Deno.test("cancel of a finished task is refused and changes nothing", async () => {
  const store = new TaskStore();
  const { taskId } = store.start(() => Promise.resolve(OK));
  await store.outcome(taskId);
  assert.throws(() => store.cancel(taskId), TaskAlreadyFinished);
  assert.equal(store.get(taskId)?.status, "completed");
  assert.equal(store.cancel("unknown"), undefined);
});

Deno.test("a finished task with a ttl longer than its run is forgotten once that ttl has passed", async () => {
  let now = 1_000;
  const store = new TaskStore({ now: () => now, maxTtlMs: 5 * KEPT_AFTER_END_MS });
  const done = store.start(() => Promise.resolve(OK), 2 * KEPT_AFTER_END_MS);
  const capped = store.start(() => Promise.resolve(OK), 60 * KEPT_AFTER_END_MS);
  assert.equal(capped.ttlMs, 5 * KEPT_AFTER_END_MS);
  await store.outcome(done.taskId);
  await store.outcome(capped.taskId);
  now += 2 * KEPT_AFTER_END_MS - 1;
  assert.equal(store.get(done.taskId)?.status, "completed");
  now += 1;
  assert.equal(store.get(done.taskId), undefined);
  assert.equal(store.forgottenReason(done.taskId), "expired");
  assert.equal(store.get(capped.taskId)?.status, "completed");
  now += 3 * KEPT_AFTER_END_MS;
  assert.deepEqual(store.list(), []);
});

Deno.test("a finished task is kept KEPT_AFTER_END_MS after its run ends, whatever its ttl", async () => {
  let now = 1_000;
  const store = new TaskStore({ now: () => now });
  const manual = manualRun();
  const short = store.start(manual.run, 100);
  const zero = store.start(manual.run, 0);
  now += 10 * KEPT_AFTER_END_MS;
  assert.equal(store.get(short.taskId)?.status, "working");
  manual.resolve(OK);
  await store.outcome(short.taskId);
  await store.outcome(zero.taskId);
  now += KEPT_AFTER_END_MS - 1;
  assert.equal(store.get(short.taskId)?.status, "completed");
  assert.deepEqual(await store.outcome(zero.taskId), { kind: "result", result: OK });
  now += 1;
  assert.equal(store.get(short.taskId), undefined);
  assert.equal(store.get(zero.taskId), undefined);
  assert.equal(store.forgottenReason(zero.taskId), "expired");
});

Deno.test("past the bound the oldest finished task makes room; all working refuses", async () => {
  const store = new TaskStore({ maxTasks: 2 });
  const first = store.start(() => Promise.resolve(OK));
  await store.outcome(first.taskId);
  const manual = manualRun();
  const second = store.start(manual.run);
  const third = store.start(untilAborted);
  assert.equal(store.get(first.taskId), undefined);
  assert.equal(store.forgottenReason(first.taskId), "dropped_for_room");
  assert.equal(store.maxTasks, 2);
  assert.deepEqual(store.list().map((task) => task.taskId), [second.taskId, third.taskId]);
  assert.throws(() => store.start(untilAborted), TaskStoreFull);
  manual.resolve(OK);
  await store.outcome(second.taskId);
  store.start(() => Promise.resolve(OK));
  assert.equal(store.get(second.taskId), undefined);
  assert.equal(store.forgottenReason(second.taskId), "dropped_for_room");
  assert.equal(store.forgottenReason("never-issued"), undefined);
  await store.close();
});

Deno.test("the record of forgotten ids is bounded: the oldest reasons are let go", async () => {
  const store = new TaskStore({ maxTasks: 1 });
  const first = store.start(() => Promise.resolve(OK));
  let last = first;
  for (let i = 0; i < FORGOTTEN_IDS_REMEMBERED + 1; i++) {
    await store.outcome(last.taskId);
    const previous = last;
    last = store.start(() => Promise.resolve(OK));
    assert.equal(store.forgottenReason(previous.taskId), "dropped_for_room");
  }
  assert.equal(store.forgottenReason(first.taskId), undefined);
  await store.close();
});

Deno.test("close aborts every working run and waits for it", async () => {
  const store = new TaskStore();
  const { taskId } = store.start(untilAborted);
  await store.close();
  assert.equal(store.get(taskId), undefined);
});
