// Batches are taken only after 2025-03-26 was negotiated, and their answers leave together.
import assert from "node:assert/strict";
import { Batches } from "./batches.ts";

const initialized = (protocolVersion: string) => ({
  jsonrpc: "2.0" as const,
  id: 0,
  result: { protocolVersion, capabilities: {}, serverInfo: { name: "s", version: "1" } },
});

Deno.test("only a connection that negotiated 2025-03-26 takes batches", () => {
  const batches = new Batches();
  assert.equal(batches.accepted, false);
  batches.observe(initialized("2025-06-18"));
  assert.equal(batches.accepted, false);
  batches.observe(initialized("2025-03-26"));
  assert.equal(batches.accepted, true);
});

Deno.test("a batch's answers are held until the last one, then leave in one array", () => {
  const batches = new Batches();
  assert.equal(batches.open([1, "b"], []), null);
  const first = { jsonrpc: "2.0" as const, id: "b", result: {} };
  const second = { jsonrpc: "2.0" as const, id: 1, result: { tools: [] } };
  assert.equal(batches.hold(first), null);
  assert.deepEqual(batches.hold(second), [first, second]);
  assert.equal(batches.hold({ jsonrpc: "2.0", id: 7, result: {} }), undefined, "not batched");
});

Deno.test("a batch of notifications and broken members answers only the broken ones", () => {
  const batches = new Batches();
  const error = { jsonrpc: "2.0" as const, id: 3, error: { code: -32600, message: "x" } };
  assert.deepEqual(batches.open([], [error]), [error]);
  assert.equal(batches.open([], []), null);
});
