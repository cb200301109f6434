// How a tool's schemas are advertised in tools/list, which a client sends to its model on every
// turn: the general tools' output schemas in a compact form (the shape an agent reads: property
// names, types, constants and enums, a few levels deep), without what only validation needs
// (patterns, lengths, bounds, required lists, descriptions, additionalProperties) and without a
// `$schema` in each. The server keeps the full schemas; tests hold every result to them.
import type { JsonSchema } from "./json_schema.ts";
import { isJsonObject } from "../util/json_object.ts";

/** Keywords an output's reader does not need: they constrain values rather than shape them. */
const VALIDATION_ONLY = new Set([
  "$schema",
  "description",
  "title",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
  "additionalProperties",
  "required",
]);

/** Keywords that nest a value one level deeper. */
const NESTING = new Set(["properties", "items"]);

/** `schema` without its `$schema`: the advertised schemas are 2020-12, MCP's default. */
export function withoutDialect(schema: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(schema).filter(([key]) => key !== "$schema"));
}

/**
 * `schema` with the validation-only keywords dropped and nesting cut after `depth` levels of
 * `properties` or `items`: deeper than that, a value keeps only its type. `$defs` and the
 * branches of `oneOf` are compacted with the depth of the place they stand.
 */
export function compactSchema(schema: JsonSchema, depth: number): JsonSchema {
  const compact: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (VALIDATION_ONLY.has(key)) continue;
    if (NESTING.has(key) && depth === 0) continue;
    compact[key] = compactValue(key, value, NESTING.has(key) ? depth - 1 : depth);
  }
  return compact;
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
