// Which of JSON-RPC's message forms a parsed line is, and the field named when it is none.
import assert from "node:assert/strict";
import { jsonRpcMessageOf } from "./json_rpc.ts";

Deno.test("requests, notifications, results and errors pass as the message they are", () => {
  const request = { jsonrpc: "2.0", id: "a", method: "ping" };
  assert.deepEqual(jsonRpcMessageOf(request), request);
  const notification = { jsonrpc: "2.0", method: "notifications/initialized", params: {} };
  assert.deepEqual(jsonRpcMessageOf(notification), notification);
  const result = { jsonrpc: "2.0", id: 3, result: {} };
  assert.deepEqual(jsonRpcMessageOf(result), result);
  const error = { jsonrpc: "2.0", id: 4, error: { code: -1, message: "no", data: "dropped" } };
  assert.deepEqual(jsonRpcMessageOf(error), {
    jsonrpc: "2.0",
    id: 4,
    error: { code: -1, message: "no" },
  });
});

Deno.test("anything else is refused with the field at fault", () => {
  assert.equal(
    jsonRpcMessageOf({ jsonrpc: "1.0", id: 1, method: "ping" }),
    'jsonrpc: must be "2.0"',
  );
  assert.equal(
    jsonRpcMessageOf({ jsonrpc: "2.0", id: 1.5, method: "ping" }),
    "id: must be a string or an integer",
  );
  assert.equal(jsonRpcMessageOf({ jsonrpc: "2.0", id: 1, method: 7 }), "method: must be a string");
  assert.equal(
    jsonRpcMessageOf({ jsonrpc: "2.0", id: 1, method: "x", params: [] }),
    "params: must be an object",
  );
  assert.equal(
    jsonRpcMessageOf({ jsonrpc: "2.0", id: 1 }),
    "a message needs a method, a result object or an error object",
  );
});
