// The advertised forms: an input keeps what a caller needs to build a call and drops the rules
// the server checks and names itself; the compact output keeps what a reader needs and drops
// what only validation needs, and never rejects a value the full schema accepts.
import assert from "node:assert/strict";
import { advertisedInput, advertisedOutput, compactSchema } from "./advertised.ts";
import { isValid } from "./schemas.ts";

const SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  oneOf: [
    {
      type: "object",
      additionalProperties: false,
      required: ["ok", "data"],
      properties: {
        ok: { const: true },
        data: {
          type: "object",
          properties: {
            panes: {
              type: "array",
              maxItems: 1000,
              items: {
                type: "object",
                properties: {
                  pane_id: { type: "string", pattern: "^%[0-9]+$", description: "exact pane id" },
                  foreground: {
                    type: ["object", "null"],
                    properties: { pid: { type: "integer" } },
                  },
                },
              },
            },
          },
        },
      },
    },
    { $ref: "#/$defs/failure" },
  ],
  $defs: { failure: { type: "object", properties: { ok: { const: false } } } },
};

Deno.test("the compact form keeps names, types and constants, a few levels deep", () => {
  assert.deepEqual(compactSchema(SCHEMA, 4), {
    type: "object",
    anyOf: [
      {
        type: "object",
        properties: {
          ok: { const: true },
          data: {
            type: "object",
            properties: {
              panes: {
                type: "array",
                items: {
                  type: "object",
                  properties: {
                    pane_id: { type: "string" },
                    foreground: { type: ["object", "null"] },
                  },
                },
              },
            },
          },
        },
      },
      { $ref: "#/$defs/failure" },
    ],
    $defs: { failure: { type: "object", properties: { ok: { const: false } } } },
  });
});

Deno.test("branches cut to the same type are one, and a lone one stands for its anyOf", () => {
  const completion = {
    oneOf: [
      { type: "object", properties: { state: { const: "exited" } } },
      { type: "object", properties: { state: { const: "signaled" } } },
    ],
  };
  assert.deepEqual(compactSchema(completion, 0), { type: "object" });
  assert.deepEqual(compactSchema({ oneOf: [{ type: "string" }, { const: null }] }, 0), {
    anyOf: [{ type: "string" }, { const: null }],
  });
});

Deno.test("an advertised output is ok and the compact success data, a failure valid too", () => {
  assert.deepEqual(advertisedOutput(SCHEMA, 1), {
    type: "object",
    properties: {
      ok: { type: "boolean" },
      data: { type: "object", properties: { panes: { type: "array" } } },
    },
  });
  const failure = { ok: false, error: { code: "not_found", message: "m", delivery: "not_sent" } };
  assert.ok(isValid(advertisedOutput(SCHEMA, 1), failure), "a failure is valid");
  assert.ok(!isValid(advertisedOutput(SCHEMA, 1), { ok: "yes" }), "ok is still a boolean");
  assert.throws(() => advertisedOutput({ type: "object" }, 1), /not the \{ok, data\}/);
});

Deno.test("an advertised input drops the server's own checks and keeps what builds a call", () => {
  const input = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    required: [],
    properties: {
      pattern: { type: "string", minLength: 1, maxLength: 1024, description: "text to find" },
      pane_id: { type: "string", pattern: "^%[0-9]+$", maxLength: 32, description: "e.g. %3" },
      patterns: { type: "array", minItems: 1, items: { type: "string", maxLength: 1024 } },
      max_lines: { type: "integer", minimum: 1, maximum: 10000, description: "default 1000" },
      scope: { enum: ["server", "pane"], description: "which" },
    },
  };
  assert.deepEqual(advertisedInput(input), {
    type: "object",
    additionalProperties: false,
    properties: {
      pattern: { type: "string", description: "text to find" },
      pane_id: { type: "string", description: "e.g. %3" },
      patterns: { type: "array", items: { type: "string" } },
      max_lines: { type: "integer", minimum: 1, maximum: 10000, description: "default 1000" },
      scope: { enum: ["server", "pane"], description: "which" },
    },
  });
  assert.deepEqual(advertisedInput({ ...input, required: ["pane_id"] }).required, ["pane_id"]);
});
