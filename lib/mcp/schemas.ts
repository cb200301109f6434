// Validating tool inputs against the JSON Schemas the server advertises, and saying what is
// wrong in words an agent can act on. ajv checks (JSON Schema 2020-12, the validator the MCP SDK
// is built on); this module turns ajv's errors into sentences that name the field, the rule and
// the limit, never the value, with a hint for a field from its schema's description or from the
// hints a tool gives for a schema that has none (tmux_run's contract).
import type { JsonSchema, Schema } from "./json_schema.ts";
import { isJsonObject } from "../util/json_object.ts";
import { Ajv2020 } from "../deps.ts";

export type { JsonSchema };

/** What a field means, by its dotted name (`target.generation`), for schemas without descriptions. */
export type FieldHints = Readonly<Record<string, string>>;

// `allErrors` so that one refusal names every broken field; `strict: false` because the schemas
// carry annotations (`title`, `description`) ajv's strict mode would question. ajv caches each
// compiled schema by its object, so every schema is compiled once.
const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true });

/** One broken rule as ajv reports it: the keyword, where in the value, and its parameters. */
type SchemaError = {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  parentSchema?: JsonSchema;
};

/** Every rule `value` breaks, in ajv's order; empty when it is valid. */
export function schemaErrors(schema: JsonSchema, value: unknown): SchemaError[] {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : validate.errors ?? [];
}

/**
 * Whether `value` is valid against `schema`, as a type guard: a valid value has the type the
 * schema names.
 */
export function isValid<T>(schema: Schema<T>, value: unknown): value is T {
  return ajv.compile(schema)(value);
}

// Once an input has failed, every error is collected with its schema to say which field broke
// which rule. Messages name fields, rules and limits from the schema; they never quote the
// value, which may be a secret or a long script.

/** Patterns our schemas use, said the way a person would. */
const PATTERN_FORMS: Record<string, string> = {
  "^%[0-9]+$": "must look like %N (a pane id, e.g. %3; list_panes gives them)",
  "^@[0-9]+$": "must look like @N (a window id, e.g. @2; list_windows gives them)",
  "^\\$[0-9]+$":
    "must look like $N (a session id, e.g. $1); to name a session by its name use session_name",
  "^[A-Za-z0-9._-]+$": "may hold only letters, digits, '.', '_' and '-'",
  "^[^:.\\u0000-\\u001f]+$": "must not contain ':', '.' or control characters",
  "^[^\\u0000-\\u001f]+$": "must not contain control characters",
  "^[^\\u0000-\\u001f]*$": "must not contain control characters",
  "^[^\\u0000]*$": "must not contain a NUL character",
  "^[A-Za-z_][A-Za-z0-9_]*$":
    "must be a variable name (letters, digits and '_', not first a digit)",
};

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  array: "an array",
  object: "an object",
  null: "null",
};

/** `/target/generation` → `target.generation`; `/patterns/0` → `patterns[0]`. */
function fieldName(pointer: string): string {
  let name = "";
  for (const raw of pointer.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    name += /^\d+$/.test(part) ? `[${part}]` : name === "" ? part : `.${part}`;
  }
  return name;
}

/** A schema's `properties`, the subschemas by name; none if it has no such object. */
function propertiesOf(schema: JsonSchema): Record<string, JsonSchema> {
  const properties = schema.properties;
  return isSchemaMap(properties) ? properties : {};
}

function isSchemaMap(value: unknown): value is Record<string, JsonSchema> {
  return typeof value === "object" && value !== null &&
    Object.values(value).every(isJsonObject);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function describeError(error: SchemaError, hints: FieldHints): string | null {
  const field = fieldName(error.instancePath);
  const p = error.params;
  const parent = error.parentSchema ?? {};
  const hintFor = (name: string, schema: JsonSchema | undefined) => {
    const hint = hints[name] ??
      (typeof schema?.description === "string" ? schema.description : undefined);
    return hint ? ` (${hint})` : "";
  };
  switch (error.keyword) {
    case "required": {
      const name = join(field, String(p.missingProperty));
      const property = propertiesOf(parent)[String(p.missingProperty)];
      return `\`${name}\` is required${hintFor(name, property)}`;
    }
    case "additionalProperties": {
      const key = String(p.additionalProperty);
      const named = /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? `\`${join(field, key)}\`` : "a parameter";
      const known = Object.keys(propertiesOf(parent));
      return `${named} is not a parameter ${field === "" ? "of this tool" : `of \`${field}\``}` +
        ` (allowed: ${known.join(", ") || "none"})`;
    }
    case "type": {
      const types = Array.isArray(p.type) ? p.type : String(p.type).split(",");
      const wanted = types.map((t) => TYPE_NAMES[String(t)] ?? String(t)).join(" or ");
      return `\`${field}\` must be ${wanted}${hintFor(field, parent)}`;
    }
    case "pattern": {
      const form = PATTERN_FORMS[String(p.pattern)] ?? `must match the pattern ${p.pattern}`;
      return `\`${field}\` ${form}`;
    }
    case "maxLength":
      return `\`${field}\` is over its limit of ${p.limit} characters`;
    case "minLength":
      return p.limit === 1
        ? `\`${field}\` must not be empty`
        : `\`${field}\` must be at least ${p.limit} characters long`;
    case "maximum":
      return `\`${field}\` must be at most ${p.limit}`;
    case "minimum":
      return `\`${field}\` must be at least ${p.limit}`;
    case "exclusiveMaximum":
      return `\`${field}\` must be less than ${p.limit}`;
    case "exclusiveMinimum":
      return `\`${field}\` must be greater than ${p.limit}`;
    case "maxItems":
      return `\`${field}\` may have at most ${p.limit} items`;
    case "minItems":
      return `\`${field}\` must have at least ${p.limit} item${p.limit === 1 ? "" : "s"}`;
    case "enum": {
      const values = Array.isArray(p.allowedValues) ? p.allowedValues : [p.allowedValues];
      return `\`${field}\` must be one of: ${values.join(", ")}`;
    }
    case "const":
      return `\`${field}\` must be ${JSON.stringify(p.allowedValue)}`;
    case "oneOf":
    case "anyOf":
      return null;
    default:
      return `\`${field || "the arguments"}\` breaks the schema's ${error.keyword} rule`;
  }
}

/**
 * Why `value` fails `schema`, as fields and rules ("`pane_id` must look like %N"), or null
 * when it does not fail. Never contains the value itself.
 */
export function inputProblems(
  schema: JsonSchema,
  value: unknown,
  hints: FieldHints = {},
): string | null {
  const errors = schemaErrors(schema, value);
  if (errors.length === 0) return null;
  const messages = [
    ...new Set(errors.map((error) => describeError(error, hints)).filter((m) => m !== null)),
  ];
  if (messages.length === 0) {
    const fields = [...new Set(errors.map((e) => fieldName(e.instancePath) || "the arguments"))];
    messages.push(...fields.map((f) => `\`${f}\` does not have an allowed form`));
  }
  const shown = messages.slice(0, 4);
  const more = messages.length - shown.length;
  return shown.join("; ") + (more > 0 ? `; and ${more} more` : "");
}
