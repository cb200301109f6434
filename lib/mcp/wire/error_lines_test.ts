// The SDK's schema reports become field phrases; every message becomes one bounded line.
import assert from "node:assert/strict";
import { errorLine } from "./error_lines.ts";

Deno.test("a schema report is said as the fields at fault", () => {
  const report = JSON.stringify(
    [
      { expected: "string", code: "invalid_type", path: ["params", "name"], message: "Invalid" },
      { code: "custom", path: ["params", "arguments", 0], message: "expected record" },
    ],
    null,
    2,
  );
  assert.deepEqual(errorLine({ code: -32602, message: `Invalid tools/call request: ${report}` }), {
    code: -32602,
    message:
      "Invalid tools/call request: params.name: Invalid; params.arguments[0]: expected record",
  });
});

Deno.test("a report on the params is invalid params, whatever code it came with", () => {
  const report = JSON.stringify([{ path: ["params", "uri"], message: "expected string" }]);
  assert.deepEqual(errorLine({ code: -32603, message: report }), {
    code: -32602,
    message: "params.uri: expected string",
  });
  const elsewhere = JSON.stringify([{ path: ["result"], message: "bad" }]);
  assert.equal(errorLine({ code: -32603, message: elsewhere }).code, -32603);
});

Deno.test("other messages are flattened and bounded, brackets and all", () => {
  const line = (message: string) => errorLine({ code: -32603, message }).message;
  assert.equal(line("two\n  lines"), "two lines");
  assert.equal(line("a list [1, 2] stays"), "a list [1, 2] stays");
  const long = line("x".repeat(400));
  assert.equal(long.length, 300);
  assert.ok(long.endsWith("…"));
});
