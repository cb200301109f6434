// The cursor store without tmux: handles are short, a value is found while it lives, and a
// handle that is gone says whether it expired here or was never made here.
import assert from "node:assert/strict";
import { CursorStore } from "./cursor_store.ts";

function clockedStore(capacity = 4, idleMs = 1000) {
  const clock = { now: 0 };
  const store = new CursorStore<string>({ capacity, idleMs, now: () => clock.now });
  return { clock, store };
}

Deno.test("a handle is short and opaque and gives back its value", () => {
  const { store } = clockedStore();
  const handle = store.issue("screen text that must stay on the server");
  assert.ok(handle.length <= 64, handle);
  assert.doesNotMatch(handle, /screen/);
  assert.deepEqual(store.look(handle), {
    ok: true,
    value: "screen text that must stay on the server",
  });
});

Deno.test("a cursor idle longer than its lifetime has expired; using it keeps it alive", () => {
  const { clock, store } = clockedStore(4, 1000);
  const used = store.issue("used");
  const idle = store.issue("idle");
  clock.now = 900;
  assert.equal(store.look(used).ok, true);
  clock.now = 1500;
  assert.deepEqual(store.look(idle), { ok: false, miss: "expired" });
  assert.equal(store.look(used).ok, true);
  assert.equal(store.size, 1);
});

Deno.test("past its capacity the store forgets the least recently used cursor", () => {
  const { store } = clockedStore(2);
  const first = store.issue("first");
  const second = store.issue("second");
  store.look(first);
  const third = store.issue("third");
  assert.deepEqual(store.look(second), { ok: false, miss: "expired" });
  assert.equal(store.look(first).ok, true);
  assert.equal(store.look(third).ok, true);
  assert.equal(store.size, 2);
});

Deno.test("a handle another store made, or no handle at all, is foreign", () => {
  const { store } = clockedStore();
  const other = clockedStore().store.issue("elsewhere");
  for (const handle of [other, "", "c1.eyJ9", "c.zz.zz", store.issue("x") + "0"]) {
    assert.deepEqual(store.look(handle), { ok: false, miss: "foreign" }, handle);
  }
});
