// The builders' two promises, checked without tmux: what they build is plain JSON with its keys
// in the order written (so what tools/list advertises is exactly what the code says), and the
// type they carry fails `deno check` on a missing or unknown key (the `@ts-expect-error` lines
// below break `deno task check` the day the type stops catching them).
import assert from "node:assert/strict";
import {
  enumOf,
  integer,
  nullable,
  object,
  oneOf,
  type Static,
  string,
  toolInput,
} from "./json_schema.ts";
import { isValid } from "./schemas.ts";

const INPUT = toolInput(["pane_id"], {
  pane_id: string({ pattern: "^%[0-9]+$", description: "a pane" }),
  lines: integer({ minimum: 1 }),
  side: enumOf(["left", "right"]),
});

Deno.test("a built schema is plain JSON, keys in the order written, no hidden keys", () => {
  assert.equal(
    JSON.stringify(INPUT),
    '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",' +
      '"additionalProperties":false,"required":["pane_id"],"properties":{' +
      '"pane_id":{"type":"string","pattern":"^%[0-9]+$","description":"a pane"},' +
      '"lines":{"type":"integer","minimum":1},"side":{"enum":["left","right"]}}}',
  );
  assert.deepEqual(Object.getOwnPropertySymbols(INPUT), []);
  assert.deepEqual(INPUT, JSON.parse(JSON.stringify(INPUT)));
});

Deno.test("isValid accepts what the schema allows and narrows to its type", () => {
  const value: unknown = { pane_id: "%3", side: "left" };
  assert.ok(isValid(INPUT, value));
  const args: Static<typeof INPUT> = value;
  assert.equal(args.pane_id, "%3");
  assert.equal(isValid(INPUT, { pane_id: "%3", pane: 1 }), false);
  assert.equal(isValid(INPUT, { side: "left" }), false);
  assert.equal(isValid(object([], { n: nullable("integer") }), { n: null }), true);
});

Deno.test("the type a schema carries rejects missing, unknown and misspelled keys", () => {
  type Args = Static<typeof INPUT>;
  const ok: Args = { pane_id: "%1", lines: 3 };
  // @ts-expect-error: pane_id is required
  const missing: Args = { lines: 3 };
  // @ts-expect-error: the schema defines no `line`
  const unknown: Args = { pane_id: "%1", line: 3 };
  // @ts-expect-error: "up" is not one of the enum's values
  const outside: Args = { pane_id: "%1", side: "up" };
  // @ts-expect-error: `required` names a property the schema does not define
  const misspelled = toolInput(["pane_di"], { pane_id: string() });
  assert.ok([ok, missing, unknown, outside, misspelled].every((v) => typeof v === "object"));
});

Deno.test("oneOf is plain JSON and its type is the union of its schemas' types", () => {
  const either = oneOf([object(["a"], { a: string() }), object(["b"], { b: integer() })]);
  const ok: Static<typeof either>[] = [{ a: "x" }, { b: 1 }];
  // @ts-expect-error: neither schema allows `c`
  const neither: Static<typeof either> = { c: 1 };
  assert.ok(isValid(either, ok[1]));
  assert.equal(isValid(either, neither), false);
  assert.deepEqual(JSON.parse(JSON.stringify(either)), {
    oneOf: [
      {
        type: "object",
        additionalProperties: false,
        required: ["a"],
        properties: { a: { type: "string" } },
      },
      {
        type: "object",
        additionalProperties: false,
        required: ["b"],
        properties: { b: { type: "integer" } },
      },
    ],
  });
});
