import assert from "node:assert/strict";
import type { CallToolResult } from "../../deps.ts";
import { TaskAlreadyFinished, TaskStore, TaskStoreFull } from "./task_store.ts";

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

Deno.test("a finished task is forgotten once its TTL has passed, a working one is not", async () => {
  let now = 1_000;
  const store = new TaskStore({ now: () => now, maxTtlMs: 5_000 });
  const manual = manualRun();
  const working = store.start(manual.run, 100);
  const done = store.start(() => Promise.resolve(OK), 100);
  const capped = store.start(() => Promise.resolve(OK), 60_000);
  assert.equal(capped.ttlMs, 5_000);
  await store.outcome(done.taskId);
  now += 100;
  assert.equal(store.get(done.taskId), undefined);
  assert.equal(store.get(working.taskId)?.status, "working");
  manual.resolve(OK);
  await store.outcome(working.taskId);
  assert.equal(store.get(working.taskId), undefined);
  assert.equal(store.get(capped.taskId)?.status, "completed");
  now += 4_900;
  assert.deepEqual(store.list(), []);
});

Deno.test("past the bound the oldest finished task makes room; all working refuses", async () => {
  const store = new TaskStore({ maxTasks: 2 });
  const first = store.start(() => Promise.resolve(OK));
  await store.outcome(first.taskId);
  const manual = manualRun();
  const second = store.start(manual.run);
  const third = store.start(untilAborted);
  assert.equal(store.get(first.taskId), undefined);
  assert.deepEqual(store.list().map((task) => task.taskId), [second.taskId, third.taskId]);
  assert.throws(() => store.start(untilAborted), TaskStoreFull);
  manual.resolve(OK);
  await store.outcome(second.taskId);
  store.start(() => Promise.resolve(OK));
  assert.equal(store.get(second.taskId), undefined);
  await store.close();
});

Deno.test("close aborts every working run and waits for it", async () => {
  const store = new TaskStore();
  const { taskId } = store.start(untilAborted);
  await store.close();
  assert.equal(store.get(taskId), undefined);
});
