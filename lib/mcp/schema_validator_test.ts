// Our validator against ajv, the reference: for every schema the server advertises, many values
// built from the schema (valid ones, then each rule broken on purpose, then several at once)
// must get ajv's verdict and ajv's error list, keyword for keyword and in ajv's order, since the
// messages agents read are written from those errors. The values come from a seeded generator,
// so every run checks the same ones.
import assert from "node:assert/strict";
import { CATALOG } from "./catalog.ts";
import { inputProblems, schemas } from "./schemas.ts";
import { conforms, type SchemaError, schemaErrors } from "./schema_validator.ts";
import type { JsonSchema } from "./json_schema.ts";
import { ajvAccepts, ajvErrors } from "../../tests/schema_oracle.ts";
import { isJsonObject } from "../json_object.ts";

/** Schemas that use the subset in ways ours do not yet: overlapping branches, recursion. */
const SUBSET_CORNERS: Record<string, JsonSchema> = {
  "oneOf with overlapping branches": {
    oneOf: [{ type: "string" }, { type: "string", maxLength: 3 }, { const: "x" }],
  },
  "additionalProperties as a schema": {
    type: "object",
    properties: { a: { type: "integer" } },
    additionalProperties: { type: "string", minLength: 2 },
  },
  "a $ref to the root": {
    type: "object",
    additionalProperties: false,
    required: ["name"],
    properties: {
      name: { type: "string", pattern: "^[A-Za-z0-9._-]+$" },
      children: { type: "array", maxItems: 2, items: { $ref: "#" } },
    },
  },
  "several types and their keywords": {
    type: ["number", "null", "string"],
    minimum: 0,
    exclusiveMinimum: 0.5,
    maximum: 10,
    maxLength: 2,
  },
  "a $ref beside other keywords": {
    $defs: { count: { type: "integer", minimum: 1 } },
    $ref: "#/$defs/count",
    maximum: 5,
  },
  "a lone type whose group also has enum": { type: "string", enum: ["a", "bb"], maxLength: 1 },
  "an object group without type": { required: ["a"], properties: { a: { const: [1, { b: 2 }] } } },
  "$ref, enum and oneOf side by side": {
    $defs: { short: { type: "string", maxLength: 2 } },
    $ref: "#/$defs/short",
    enum: ["a", "bcd", 3],
    oneOf: [{ const: "a" }, { type: "number" }],
  },
  "a pattern where the u flag matters": { type: "string", pattern: "^.{1,2}$" },
};

function schemasUnderTest(): [string, JsonSchema][] {
  const list: [string, JsonSchema][] = [
    ["schemas/tmux_run.input.schema.json", schemas.tmuxRunInput],
    ["schemas/tmux_run.output.schema.json", schemas.tmuxRunOutput],
  ];
  for (const tool of CATALOG) {
    list.push([`${tool.name} input`, tool.inputSchema], [`${tool.name} output`, tool.outputSchema]);
  }
  for (const [name, schema] of Object.entries(SUBSET_CORNERS)) list.push([name, schema]);
  return list;
}

/** mulberry32: small, seeded, the same sequence on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ASTRAL = "\u{1F600}";

/** Strings each pattern our schemas use accepts; a new pattern needs its samples here. */
const PATTERN_SAMPLES: Record<string, string[]> = {
  "^[a-f0-9]{32}$": ["0123456789abcdef0123456789abcdef"],
  "^[a-f0-9]{64}$": ["e".repeat(64)],
  "^%[0-9]+$": ["%3", "%120"],
  "^@[0-9]+$": ["@2"],
  "^\\$[0-9]+$": ["$1"],
  "^[A-Za-z0-9._-]+$": ["default", "a.b_c-9"],
  "^[^:.\\u0000-\\u001f]+$": ["work", "naïve 😀 name"],
  "^[^\\u0000-\\u001f]+$": ["vim", "𝄞 title"],
  "^[^\\u0000-\\u001f]*$": ["", "x y"],
  "^[^\\u0000]*$": ["true", "echo 😀\n"],
  "^[A-Za-z_][A-Za-z0-9_]*$": ["PATH", "_x1"],
  "^@?[A-Za-z0-9_-]+(\\[[0-9]+\\])?$": ["status", "@user-option[2]"],
  "^([%@$][0-9]+|global)$": ["%1", "global"],
  "^([%@$][0-9]+|server)$": ["$2", "server"],
  "^.{1,2}$": ["ab", ASTRAL],
};

type Site = { path: (string | number)[]; node: JsonSchema };

type Build = { root: JsonSchema; choice: number; sites: Site[]; full: boolean; depth: number };

function resolveRef(root: JsonSchema, ref: unknown): JsonSchema {
  if (ref === "#") return root;
  const name = String(ref).replace("#/$defs/", "");
  const defs = root.$defs;
  const target = isJsonObject(defs) ? defs[name] : undefined;
  assert.ok(isJsonObject(target), `cannot resolve ${String(ref)}`);
  return target;
}

function subschemas(value: unknown): JsonSchema[] {
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function numberIn(node: JsonSchema, integral: boolean): number {
  const low = typeof node.minimum === "number"
    ? node.minimum
    : typeof node.exclusiveMinimum === "number"
    ? node.exclusiveMinimum + 1
    : 0;
  const high = typeof node.maximum === "number" ? node.maximum : low + 100;
  const middle = low + (high - low) / 3;
  return integral ? Math.ceil(middle) : middle;
}

function stringFor(node: JsonSchema, build: Build): string {
  if (typeof node.pattern === "string") {
    const samples = PATTERN_SAMPLES[node.pattern];
    assert.ok(samples, `no samples for pattern ${node.pattern}: add them to PATTERN_SAMPLES`);
    return samples[build.choice % samples.length];
  }
  const min = typeof node.minLength === "number" ? node.minLength : 0;
  const max = typeof node.maxLength === "number" ? node.maxLength : min + 8;
  const length = Math.min(max, Math.max(min, 5));
  // Astral characters count once, as ajv counts them, so the length stays within bounds.
  return build.choice % 2 === 0 ? "ab😀c d".repeat(length).slice(0, length) : ASTRAL.repeat(length);
}

/** A value `node` accepts (given the sample table), recording where each subschema applies. */
function buildValue(node: JsonSchema, path: (string | number)[], build: Build): unknown {
  build.sites.push({ path, node });
  if (node.$ref !== undefined) {
    const { $ref, ...siblings } = node;
    const merged = { ...resolveRef(build.root, $ref), ...siblings };
    if (build.depth > 3) return buildShallow(merged);
    build.depth++;
    const value = buildValue(merged, path, build);
    build.depth--;
    return value;
  }
  if (Object.hasOwn(node, "const")) return structuredClone(node.const);
  if (Array.isArray(node.enum)) return node.enum[build.choice % node.enum.length];
  const branches = subschemas(node.oneOf);
  if (branches.length > 0) return buildValue(branches[build.choice % branches.length], path, build);
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const type = types[build.choice % types.length];
  switch (type) {
    case "string":
      return stringFor(node, build);
    case "integer":
    case "number":
      return numberIn(node, type === "integer");
    case "boolean":
      return build.choice % 2 === 0;
    case "null":
      return null;
    case "array": {
      const item = isJsonObject(node.items) ? node.items : {};
      const min = typeof node.minItems === "number" ? node.minItems : 0;
      const max = typeof node.maxItems === "number" ? node.maxItems : 3;
      const count = build.depth > 3 ? min : Math.min(max, Math.max(min, 2));
      return Array.from({ length: count }, (_, i) => buildValue(item, [...path, i], build));
    }
    default: {
      const properties = isJsonObject(node.properties) ? node.properties : {};
      const required = Array.isArray(node.required) ? node.required : [];
      const value: Record<string, unknown> = {};
      for (const [name, property] of Object.entries(properties)) {
        if (!isJsonObject(property) || !(build.full || required.includes(name))) continue;
        value[name] = buildValue(property, [...path, name], build);
      }
      return value;
    }
  }
}

function buildShallow(node: JsonSchema): unknown {
  return buildValue(node, [], { root: node, choice: 0, sites: [], full: false, depth: 4 });
}

/** Values that break one of `node`'s rules, or happen not to; ajv says which. */
function breakersOf(node: JsonSchema, root: JsonSchema, base: unknown): unknown[] {
  const values: unknown[] = [null, true, 0, -1, 1.5, "x", "", [], {}, ASTRAL, -0];
  const target = node.$ref === undefined ? node : resolveRef(root, node.$ref);
  for (const rules of [node, target]) {
    const { minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum } = rules;
    const sample = typeof base === "string" ? base : "a";
    if (typeof minLength === "number") {
      values.push("a".repeat(Math.max(0, minLength - 1)), ASTRAL.repeat(minLength));
      values.push(ASTRAL.repeat(Math.max(0, minLength - 1)), "\ud800".repeat(minLength));
    }
    if (typeof maxLength === "number") {
      values.push(
        "a".repeat(maxLength + 1),
        ASTRAL.repeat(maxLength),
        ASTRAL.repeat(maxLength + 1),
      );
      values.push(sample + "a".repeat(Math.max(0, maxLength - sample.length + 1)));
    }
    if (typeof pattern === "string") {
      values.push(sample + "\n", " " + sample, sample + ":", sample + ".", sample + "\u0000");
      values.push(sample + ASTRAL, sample.toUpperCase(), "%", "$x", "@", "\u001f", "9" + sample);
    }
    for (const limit of [minimum, maximum, exclusiveMinimum]) {
      if (typeof limit === "number") values.push(limit - 1, limit, limit + 1, limit + 0.5);
    }
    if (Object.hasOwn(rules, "const")) {
      const allowed = rules.const;
      values.push(
        typeof allowed === "string" ? allowed.toUpperCase() : "other",
        typeof allowed === "boolean" ? !allowed : "true",
      );
    }
    if (Array.isArray(rules.enum)) values.push("bogus", ...rules.enum, String(rules.enum[0]) + " ");
    if (Array.isArray(base)) {
      const { maxItems } = rules;
      const item = base[0] ?? "x";
      if (typeof maxItems === "number") values.push(Array(maxItems + 1).fill(item));
      values.push([item, 5], [...base, null], base.slice(1));
    }
    if (isJsonObject(base)) {
      for (const key of Object.keys(base)) {
        const { [key]: _removed, ...rest } = base;
        values.push(rest);
      }
      values.push({ ...base, extra: 1 }, { ...base, "we/ird~key": true, other: null });
    }
  }
  return values;
}

function replaced(root: unknown, path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(root);
  let parent: unknown = copy;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return copy;
    parent = Reflect.get(parent, key);
  }
  if (typeof parent === "object" && parent !== null) Reflect.set(parent, path.at(-1)!, value);
  return copy;
}

function valueAt(root: unknown, path: (string | number)[]): unknown {
  let value = root;
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined;
    value = Reflect.get(value, key);
  }
  return value;
}

/** Valid bases (one per branch choice), every single break, then random multiple breaks. */
function valuesFor(schema: JsonSchema, seed: number): unknown[] {
  const random = seeded(seed);
  const values: unknown[] = [];
  const mutations: { path: (string | number)[]; value: unknown }[] = [];
  for (let choice = 0; choice < 4; choice++) {
    for (const full of [true, false]) {
      const build: Build = { root: schema, choice, sites: [], full, depth: 0 };
      const base = buildValue(schema, [], build);
      if (choice === 0 && full) {
        assert.ok(ajvAccepts(schema, base), `the first built value is invalid: ${shown(base)}`);
      }
      values.push(base);
      if (!full) continue;
      for (const site of build.sites) {
        for (const breaker of breakersOf(site.node, schema, valueAt(base, site.path))) {
          values.push(replaced(base, site.path, breaker));
          mutations.push({ path: site.path, value: breaker });
        }
      }
    }
  }
  const base = values[0];
  for (let i = 0; i < 60; i++) {
    let value = base;
    const count = 2 + Math.floor(random() * 3);
    for (let j = 0; j < count; j++) {
      const mutation = mutations[Math.floor(random() * mutations.length)];
      value = replaced(value, mutation.path, mutation.value);
    }
    values.push(value);
  }
  return values;
}

/** A value for an assertion message, long strings cut short. */
function shown(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v) =>
      typeof v === "string" && v.length > 40 ? `${v.slice(0, 40)}…(${v.length} units)` : v,
  );
}

/** The fields describeError reads, with ajv's extra `comparison` left out. */
function comparable(error: {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  parentSchema?: unknown;
}) {
  const { comparison: _comparison, ...params } = error.params;
  return {
    keyword: error.keyword,
    instancePath: error.instancePath,
    params,
    parentSchema: error.parentSchema,
  };
}

Deno.test("every schema gives ajv's verdict and ajv's errors for thousands of built values", () => {
  let checked = 0;
  let valid = 0;
  for (const [index, [name, schema]] of schemasUnderTest().entries()) {
    for (const value of valuesFor(schema, 0x5eed + index)) {
      const expected = ajvAccepts(schema, value);
      const where = `${name}, value ${shown(value)}`;
      assert.equal(conforms(schema, value), expected, `verdict differs from ajv's: ${where}`);
      const ours: SchemaError[] = schemaErrors(schema, value);
      assert.deepEqual(
        ours.map(comparable),
        ajvErrors(schema, value).map(comparable),
        `errors differ from ajv's: ${where}`,
      );
      checked++;
      if (expected) valid++;
    }
  }
  // The generator must reach both sides of every rule, not only one.
  assert.ok(checked > 5000, `only ${checked} values checked`);
  assert.ok(valid > checked / 20 && valid < checked / 2, `${valid} of ${checked} values valid`);
});

Deno.test("a maxLength counts code points: 128 astral characters fit a limit of 128", () => {
  const target = { kind: "pane", id: "%3", generation: ASTRAL.repeat(128) };
  assert.equal(conforms(schemas.tmuxRunInput, { target, script: "" }), true);
  const over = { target: { ...target, generation: ASTRAL.repeat(129) }, script: "" };
  assert.equal(conforms(schemas.tmuxRunInput, over), false);
});

Deno.test("a schema with a keyword outside the subset is refused when compiled", () => {
  assert.throws(
    () => conforms({ type: "string", format: "email" }, "a@b"),
    /schema at # uses format, which this validator does not implement/,
  );
  assert.throws(
    () => conforms({ type: "object", properties: { a: { type: "array", uniqueItems: true } } }, {}),
    /schema at #\/properties\/a uses uniqueItems/,
  );
  assert.throws(
    () => conforms({ $defs: { unused: { anyOf: [] } }, type: "null" }, null),
    /schema at #\/\$defs\/unused uses anyOf/,
  );
  assert.throws(() => conforms({ $ref: "#/properties/a" }, 1), /is not "#" or "#\/\$defs\/<name>"/);
});

const target = { kind: "pane", id: "%3", generation: "g1" };

/** Inputs and the messages the ajv-based explainer gave them, recorded before the switch. */
const MESSAGES: [tool: string, input: unknown, message: string][] = [
  [
    "tmux_run",
    {},
    '`target` is required (like {"kind": "pane", "id": "%N", "generation": "…"}); ' +
    "`script` is required (the POSIX sh script to run, at most 65536 UTF-8 bytes)",
  ],
  ["tmux_run", null, "`` must be an object"],
  ["tmux_run", [], "`` must be an object"],
  [
    "tmux_run",
    { target, script: 5 },
    "`script` must be a string (the POSIX sh script to run, at most 65536 UTF-8 bytes)",
  ],
  [
    "tmux_run",
    { target: { kind: "window", id: "3", generation: "" }, script: "true" },
    "`target.generation` must not be empty; " +
    "`target.id` must look like %N (a pane id, e.g. %3; list_panes gives them); " +
    '`target.kind` must be "pane"',
  ],
  [
    "tmux_run",
    { target: "pane", script: "a\u0000b" },
    "`script` must not contain a NUL character; " +
    '`target` must be an object (like {"kind": "pane", "id": "%N", "generation": "…"})',
  ],
  [
    "tmux_run",
    { target, script: "true", extra: 1, "weird key!": 2 },
    "`extra` is not a parameter of this tool (allowed: script, stderr_limit, stdout_limit, " +
    "target); a parameter is not a parameter of this tool (allowed: script, stderr_limit, " +
    "stdout_limit, target)",
  ],
  [
    "tmux_run",
    { target: { ...target, colour: "red" }, script: "true" },
    "`target.colour` is not a parameter of `target` (allowed: generation, id, kind)",
  ],
  [
    "tmux_run",
    { target, script: "true", stdout_limit: 1.5, stderr_limit: -1 },
    "`stderr_limit` must be at least 0; `stdout_limit` must be an integer",
  ],
  [
    "tmux_run",
    { target, script: "true", stdout_limit: 262145, stderr_limit: "10" },
    "`stderr_limit` must be an integer; `stdout_limit` must be at most 262144",
  ],
  [
    "tmux_run",
    { target: { kind: "pane", id: "%3" }, script: "x".repeat(65537) },
    "`script` is over its limit of 65536 characters; `target.generation` is required " +
    "(get it from tmux_capabilities: its top-level generation field)",
  ],
  [
    "tmux_run",
    { target: { ...target, generation: ASTRAL.repeat(129) }, script: "" },
    "`target.generation` is over its limit of 128 characters",
  ],
  [
    "capture_pane",
    { pane_id: "3" },
    "`pane_id` must look like %N (a pane id, e.g. %3; list_panes gives them)",
  ],
  [
    "capture_pane",
    { pane_id: "%1", start: "x", end: 10001, max_lines: 0 },
    "`start` must be an integer (first line to capture: 0 is the top of the visible screen, " +
    "negative numbers reach into history (-100 is 100 lines up); -1000000 to 10000; default: " +
    "the top of the screen); `end` must be at most 10000; `max_lines` must be at least 1",
  ],
  [
    "capture_pane",
    { pane_id: "%1", socket_name: "" },
    "`socket_name` must not be empty; " +
    "`socket_name` may hold only letters, digits, '.', '_' and '-'",
  ],
  [
    "capture_pane",
    { pane_id: "%1", socket_name: "a/b", start: -1000001 },
    "`socket_name` may hold only letters, digits, '.', '_' and '-'; " +
    "`start` must be at least -1000000",
  ],
  [
    "capture_pane",
    { pane: "%1" },
    "`pane_id` is required (exact pane id, e.g. %3 (list_panes gives them)); `pane` is not a " +
    "parameter of this tool (allowed: pane_id, socket_name, start, end, max_lines)",
  ],
  ["send_keys", { pane_id: "%1", keys: "" }, "`keys` must not be empty"],
  [
    "send_keys",
    { pane_id: "%1", keys: "x".repeat(16385), literal: "yes" },
    "`keys` is over its limit of 16384 characters; `literal` must be true or false (true " +
    "(default): type keys as text; false: keys is space-separated tmux key names such as C-c " +
    "Enter Up)",
  ],
  [
    "send_keys",
    { pane_id: 1, keys: null, enter: 1 },
    "`pane_id` must be a string (exact pane id, e.g. %3 (list_panes gives them)); `keys` must " +
    "be a string (with literal true (the default): the text to type, as is, 1 to 16384 " +
    "characters. With literal false: space-separated tmux key names such as C-c Enter Escape " +
    "Up F1 or single characters; unknown names are refused); `enter` must be true or false " +
    "(press Enter afterwards (default false))",
  ],
  ["wait_for_text", { pane_id: "%1", patterns: [] }, "`patterns` must have at least 1 item"],
  [
    "wait_for_text",
    { pane_id: "%1", patterns: ["a", "", 3], stop: Array(17).fill("s") },
    "`patterns[1]` must not be empty; `patterns[2]` must be a string; " +
    "`stop` may have at most 16 items",
  ],
  [
    "wait_for_text",
    { pane_id: "%1", patterns: "a", timeout: 0 },
    "`patterns` must be an array (1 to 16 patterns, each 1 to 1024 characters; the wait ends " +
    "when new output matches any of them. Each is tested against one line at a time (literal " +
    "text, or a regex with regex: true)); `timeout` must be greater than 0",
  ],
  [
    "wait_for_text",
    { pane_id: "%1", patterns: ["a"], timeout: -1, cursor: "abc" },
    "`timeout` must be greater than 0; `cursor` must be at least 4 characters long",
  ],
  [
    "resize_pane",
    { pane_id: "%1", width: 0, height: 1001, zoom: null },
    "`width` must be at least 1; `height` must be at most 1000; `zoom` must be true or false " +
    "(toggle the pane's zoom instead of resizing (default false); give width, height or zoom)",
  ],
  [
    "search_panes",
    { pattern: "x", session_id: "1", session_name: "a:b" },
    "`session_id` must look like $N (a session id, e.g. $1); to name a session by its name use " +
    "session_name; `session_name` must not contain ':', '.' or control characters",
  ],
  [
    "search_panes",
    { pattern: "x", session_name: "a\u0001b", max_matches: 2.5 },
    "`session_name` must not contain ':', '.' or control characters; `max_matches` must be an " +
    "integer (stop after this many matching lines; 1 to 1000, default 100)",
  ],
  [
    "set_environment",
    { name: "1ABC", value: "x" },
    "`name` must be a variable name (letters, digits and '_', not first a digit)",
  ],
  [
    "set_environment",
    { name: "A", value: 3, unset: "no", global: 0, session_id: "$x" },
    "`value` must be a string (the value, at most 65536 characters; default: empty. Ignored " +
    "with unset); `unset` must be true or false (remove the variable instead of setting it " +
    "(default false)); `global` must be true or false (the global environment instead of one " +
    "session's (default false: then give session_id or session_name)); `session_id` must look " +
    "like $N (a session id, e.g. $1); to name a session by its name use session_name",
  ],
  [
    "create_session",
    {
      session_name: "a.b",
      window_name: "w\n",
      start_directory: "",
      width: 9,
      height: 4,
    },
    "`session_name` must not contain ':', '.' or control characters; `window_name` must not " +
    "contain control characters; `start_directory` must not be empty; `width` must be at least " +
    "10; and 1 more",
  ],
  [
    "create_session",
    { width: 10, height: 5, socket_name: ASTRAL.repeat(101) },
    "`socket_name` is over its limit of 100 characters; " +
    "`socket_name` may hold only letters, digits, '.', '_' and '-'",
  ],
  ["create_session", "just a string", "`` must be an object"],
];

Deno.test("inputProblems says what the ajv-based explainer said", () => {
  for (const [tool, input, message] of MESSAGES) {
    const schema = CATALOG.find((entry) => entry.name === tool)?.inputSchema;
    assert.ok(schema, `no tool ${tool}`);
    assert.equal(inputProblems(schema, input), message, `${tool} ${shown(input)}`);
  }
});
