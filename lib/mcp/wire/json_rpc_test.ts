// Which of JSON-RPC's message forms a parsed line is, and the field named when it is none.
import assert from "node:assert/strict";
import {
  answerJson,
  errorAnswer,
  IdLiteral,
  INVALID_PARAMS,
  INVALID_REQUEST,
  jsonRpcMessageOf,
  parseMessageLine,
} from "./json_rpc.ts";
import { isJsonObject } from "../../util/json_object.ts";

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

Deno.test("anything else is refused with the field at fault and the code that answers it", () => {
  const refused = (json: Record<string, unknown>) => {
    const answer = jsonRpcMessageOf(json);
    return "code" in answer ? answer : null;
  };
  assert.deepEqual(refused({ jsonrpc: "1.0", id: 1, method: "ping" }), {
    code: INVALID_REQUEST,
    reason: 'jsonrpc: must be "2.0"',
  });
  assert.match(refused({ jsonrpc: "2.0", id: 1.5, method: "ping" })?.reason ?? "", /^id: /);
  assert.equal(refused({ jsonrpc: "2.0", id: 1, method: 7 })?.reason, "method: must be a string");
  assert.equal(refused({ jsonrpc: "2.0", id: 1, method: "x", params: [] })?.code, INVALID_PARAMS);
  assert.equal(
    refused({ jsonrpc: "2.0", id: 1 })?.reason,
    "a message needs a method, a result object or an error object",
  );
});

// The shapes @modelcontextprotocol/server 2.4.0's JSONRPCRequestSchema refuses, so that the SDK
// drops the request unanswered: each is refused here, naming its field.
Deno.test("a request the SDK would drop is refused: _meta, progressToken, related-task, id", () => {
  const problem = (fields: Record<string, unknown>) => {
    const answer = jsonRpcMessageOf({ jsonrpc: "2.0", id: 1, method: "tools/list", ...fields });
    return "code" in answer ? answer : null;
  };
  for (const meta of [null, [], "x", 5]) {
    const refused = problem({ params: { _meta: meta } });
    assert.equal(refused?.code, INVALID_PARAMS, JSON.stringify(meta));
    assert.match(refused.reason, /^params\._meta: must be an object/);
  }
  for (const token of [null, 1.5, {}, [], 2 ** 53, true]) {
    const refused = problem({ params: { _meta: { progressToken: token } } });
    assert.equal(refused?.code, INVALID_PARAMS, JSON.stringify(token));
    assert.match(refused.reason, /^params\._meta\.progressToken: .*9007199254740991/);
  }
  const related = problem({
    params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: 7 } } },
  });
  assert.equal(related?.code, INVALID_PARAMS);
  for (const id of [2 ** 53, -(2 ** 53), 2 ** 64, new IdLiteral("18446744073709551616")]) {
    assert.equal(problem({ id })?.code, INVALID_REQUEST, String(id));
  }
  assert.equal(problem({ params: { _meta: { progressToken: "p" } } }), null);
  assert.equal(
    problem({ id: 2 ** 53 - 1, params: { _meta: { progressToken: -(2 ** 53 - 1) } } }),
    null,
  );
});

Deno.test("an id JavaScript cannot hold exactly is kept as its digits and echoed as them", () => {
  const line = '{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping",' +
    '"params":{"id":18446744073709551616}}';
  const json = parseMessageLine(line);
  assert.ok(isJsonObject(json) && json.id instanceof IdLiteral);
  assert.equal(json.id.text, "18446744073709551616");
  assert.ok(isJsonObject(json.params) && typeof json.params.id === "number", "only the top id");
  const answer = answerJson(errorAnswer(json.id, INVALID_REQUEST, "no"));
  assert.equal(
    answer,
    '{"jsonrpc":"2.0","id":18446744073709551616,"error":{"code":-32600,"message":"no"}}',
  );
  const batch = parseMessageLine('[{"id":9007199254740993},{"id":7},{"id":1.5}]');
  assert.ok(Array.isArray(batch));
  assert.deepEqual(batch.map((member) => member.id), [
    new IdLiteral("9007199254740993"),
    7,
    new IdLiteral("1.5"),
  ]);
  assert.deepEqual(parseMessageLine('{"id":7}'), { id: 7 });
  assert.throws(() => parseMessageLine('{"id":'), SyntaxError);
});
