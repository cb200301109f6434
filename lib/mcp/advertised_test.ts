// The compact form keeps what a reader of an output needs and drops what only validation needs.
import assert from "node:assert/strict";
import { compactSchema, withoutDialect } from "./advertised.ts";

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
    oneOf: [
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

Deno.test("withoutDialect drops only $schema", () => {
  assert.deepEqual(withoutDialect({ $schema: "x", type: "object" }), { type: "object" });
});
