// How a tool's schemas are advertised in tools/list, which a client sends to its model on every
// turn. Inputs keep what an agent needs to build a call (names, types, required, enums, numeric
// bounds, descriptions) and drop the rules the server checks itself and names in its refusal
// (patterns, lengths, item counts). Outputs are the success payload's `data` in a compact form
// (property names, types, constants and enums, a few levels deep; what only validation needs
// dropped): the failure shape every tool shares is said once, in the server's instructions. No
// `$schema` in either. The server keeps the full schemas and validates every input with them;
// tests hold every result to the full output schemas.
import type { JsonSchema } from "./json_schema.ts";
import { isJsonObject } from "../util/json_object.ts";

/**
 * `$schema`, and the string and array rules the server checks and its refusal names
 * (lib/mcp/schemas.ts): a caller that breaks one learns it then, not from every turn's list.
 */
const CHECKED_BY_SERVER = new Set([
  "$schema",
  "pattern",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
]);

/** Keywords an output's reader does not need: they constrain values rather than shape them. */
const VALIDATION_ONLY = new Set([
  ...CHECKED_BY_SERVER,
  "description",
  "title",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "additionalProperties",
  "required",
]);

/** Keywords that nest a value one level deeper. */
const NESTING = new Set(["properties", "items"]);

/** `schema` without the keywords in `dropped`, at any depth. */
function without(schema: JsonSchema, dropped: Set<string>): JsonSchema {
  const kept: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (dropped.has(key)) continue;
    kept[key] = key === "enum" || key === "const" ? value : withoutIn(key, value, dropped);
  }
  return kept;
}

function withoutIn(key: string, value: unknown, dropped: Set<string>): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => isJsonObject(item) ? without(item, dropped) : item);
  }
  if (!isJsonObject(value)) return value;
  // `properties` maps names (which may be keywords, like search_panes' `pattern`) to schemas.
  if (key === "properties") {
    return Object.fromEntries(
      Object.entries(value).map(([name, sub]) => [
        name,
        isJsonObject(sub) ? without(sub, dropped) : sub,
      ]),
    );
  }
  return without(value, dropped);
}

/**
 * A general tool's input schema as advertised: without `$schema`, the server's own checks and
 * an empty `required` list (which requires nothing).
 */
export function advertisedInput(schema: JsonSchema): JsonSchema {
  const input = without(schema, CHECKED_BY_SERVER);
  if (Array.isArray(input.required) && input.required.length === 0) delete input.required;
  return input;
}

/**
 * `schema` with the validation-only keywords dropped and nesting cut after `depth` levels of
 * `properties` or `items`: deeper than that, a value keeps only its type. `oneOf` becomes
 * `anyOf`, since compact branches may overlap where the full ones did not; `$defs` and the
 * branches are compacted with the depth of the place they stand.
 */
export function compactSchema(schema: JsonSchema, depth: number): JsonSchema {
  const compact: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATION_ONLY.has(key)) continue;
    if (NESTING.has(key) && depth === 0) continue;
    compact[key === "oneOf" ? "anyOf" : key] = compactValue(
      key,
      value,
      NESTING.has(key) ? depth - 1 : depth,
    );
  }
  return Array.isArray(compact.anyOf) ? withoutRepeats(compact, compact.anyOf) : compact;
}

/**
 * `schema` without the repeats among its `anyOf` `branches` (cut to their type, they are often
 * the same); a lone `anyOf` left with one branch is that branch.
 */
function withoutRepeats(schema: JsonSchema, branches: unknown[]): JsonSchema {
  const unique = [...new Map(branches.map((branch) => [JSON.stringify(branch), branch])).values()];
  const [first] = unique;
  if (unique.length === 1 && Object.keys(schema).length === 1 && isJsonObject(first)) return first;
  return { ...schema, anyOf: unique };
}

function compactValue(key: string, value: unknown, depth: number): unknown {
  if (key === "const" || key === "enum" || key === "type") return value;
  if (Array.isArray(value)) {
    return value.map((item) => isJsonObject(item) ? compactSchema(item, depth) : item);
  }
  if (!isJsonObject(value)) return value;
  // `properties` and `$defs` map names to schemas; `items` and the rest are one schema.
  if (key === "properties" || key === "$defs") {
    return Object.fromEntries(
      Object.entries(value).map(([name, sub]) => [
        name,
        isJsonObject(sub) ? compactSchema(sub, depth) : sub,
      ]),
    );
  }
  return compactSchema(value, depth);
}

/**
 * The `data` schema of the success branch of a payload schema (lib/mcp/tool_result.ts: `oneOf`
 * `{ok: true, data}` or the failure); throws for a schema of another form, which no general
 * tool has (every test that lists the tools would fail).
 */
function successData(schema: JsonSchema): JsonSchema {
  const branches = Array.isArray(schema.oneOf) ? schema.oneOf : [];
  for (const branch of branches) {
    const properties = isJsonObject(branch) ? branch.properties : undefined;
    if (!isJsonObject(properties) || !isJsonObject(properties.ok)) continue;
    if (properties.ok.const === true && isJsonObject(properties.data)) return properties.data;
  }
  throw new Error("an output schema is not the {ok, data} | failure payload");
}

/**
 * A general tool's output schema as advertised: `ok` and the compact `data` (cut after `depth`
 * levels), neither required, so a success and a failure (`{ok: false, error}`, which only the
 * instructions describe) are both valid against it.
 */
export function advertisedOutput(schema: JsonSchema, depth: number): JsonSchema {
  return {
    type: "object",
    properties: { ok: { type: "boolean" }, data: compactSchema(successData(schema), depth) },
  };
}
