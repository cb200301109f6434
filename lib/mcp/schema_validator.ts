// Checks values against our JSON Schemas without ajv. A general validator was most of the
// server's memory beyond the runtime (ajv costs about 15 MiB of resident memory), yet our
// schemas use a small fixed subset of JSON Schema 2020-12. This module implements exactly that
// subset, with ajv's default meanings (`pattern` with the `u` flag, lengths in code points), and
// refuses at compile time any schema that uses a keyword outside it, so a future schema cannot
// go silently unchecked. Each schema is compiled once into a tree of closures; the valid case
// allocates nothing. The explaining mode collects every error in ajv's order and shape (as with
// `allErrors`), which is what the messages in schemas.ts are written against; the differential
// test beside this module holds both modes to ajv.
import { DIALECT, type JsonSchema } from "./json_schema.ts";
import { isJsonObject } from "../json_object.ts";

/** One broken rule, shaped like ajv's error objects: the keyword, where, and its parameters. */
export type SchemaError = {
  keyword: string;
  /** A JSON pointer into the value: `/target/id`, `/patterns/0`; "" for the value itself. */
  instancePath: string;
  params: Record<string, unknown>;
  /** The schema object holding the keyword. */
  parentSchema: JsonSchema;
};

/** Whether `value` is valid against `schema`; stops at the first broken rule. */
export function conforms(schema: JsonSchema, value: unknown): boolean {
  return checkerFor(schema)(value, null);
}

/** Every rule `value` breaks, in ajv's order; empty when it is valid. */
export function schemaErrors(schema: JsonSchema, value: unknown): SchemaError[] {
  const report: Report = { path: [], errors: [] };
  checkerFor(schema)(value, report);
  return report.errors;
}

/** Where the check is within the value and what it found; null on the fast, yes-or-no path. */
type Report = { path: (string | number)[]; errors: SchemaError[] };

type Check<T = unknown> = (value: T, report: Report | null) => boolean;

const KEYWORDS = new Set([
  "$defs",
  "$ref",
  "$schema",
  "additionalProperties",
  "const",
  "description",
  "enum",
  "exclusiveMinimum",
  "items",
  "maxItems",
  "maxLength",
  "maximum",
  "minItems",
  "minLength",
  "minimum",
  "oneOf",
  "pattern",
  "properties",
  "required",
  "type",
]);

const checkers = new WeakMap<JsonSchema, Check>();

function checkerFor(schema: JsonSchema): Check {
  let check = checkers.get(schema);
  if (!check) {
    check = compileRoot(schema);
    checkers.set(schema, check);
  }
  return check;
}

/** A `$ref` target, filled in once compiled, so references may be recursive. */
type RefBox = { check: Check };

type Compilation = { root: JsonSchema; refs: Map<string, RefBox> };

function compileRoot(root: JsonSchema): Check {
  const compilation: Compilation = { root, refs: new Map() };
  const box: RefBox = { check: unresolved };
  compilation.refs.set("#", box);
  box.check = compileSchema(root, "#", compilation);
  const defs = root.$defs;
  if (defs !== undefined) {
    // Every definition is compiled, referenced or not, so none escapes the keyword check.
    for (const name of Object.keys(schemaMap(defs, "#/$defs"))) {
      reference(`#/$defs/${name}`, compilation);
    }
  }
  return box.check;
}

function reference(ref: string, compilation: Compilation): Check {
  let box = compilation.refs.get(ref);
  if (!box) {
    const target = resolve(ref, compilation.root);
    box = { check: unresolved };
    compilation.refs.set(ref, box);
    box.check = compileSchema(target, ref, compilation);
  }
  const target = box;
  return (value, report) => target.check(value, report);
}

function unresolved(): boolean {
  throw new Error("a $ref was followed before its schema was compiled");
}

/** A `#/$defs/<name>` target; `#` itself is registered before any schema is compiled. */
function resolve(ref: string, root: JsonSchema): JsonSchema {
  const name = /^#\/\$defs\/([A-Za-z0-9_-]+)$/.exec(ref)?.[1];
  const defs = root.$defs;
  const target = name !== undefined && isSchemaObject(defs) && Object.hasOwn(defs, name)
    ? defs[name]
    : undefined;
  if (target === undefined) {
    throw new Error(`schema $ref ${ref} is not "#" or "#/$defs/<name>" naming a definition`);
  }
  return schemaObject(target, ref);
}

type TypeName = "string" | "number" | "integer" | "boolean" | "array" | "object" | "null";

const IS_TYPE: Record<TypeName, (value: unknown) => boolean> = {
  string: (value) => typeof value === "string",
  number: (value) => typeof value === "number",
  integer: Number.isInteger,
  boolean: (value) => typeof value === "boolean",
  array: Array.isArray,
  object: isJsonObject,
  null: (value) => value === null,
};

function isTypeName(name: unknown): name is TypeName {
  return typeof name === "string" && Object.hasOwn(IS_TYPE, name);
}

// The keywords that apply only to values of one type, as ajv groups them.
const NUMBER_KEYWORDS = ["maximum", "minimum", "exclusiveMinimum"];
const STRING_KEYWORDS = ["maxLength", "minLength", "pattern"];
const ARRAY_KEYWORDS = ["maxItems", "minItems", "items"];
const OBJECT_KEYWORDS = ["required", "additionalProperties", "properties"];

/**
 * One schema object as a check. The order is ajv's, so collected errors come out as ajv lists
 * them: a `type` that cannot be settled by a keyword group first, then `$ref`, `const`, `enum`,
 * `oneOf`, then the number, string, array and object groups, each guarded by its type; a lone
 * `type` whose group is present is reported where that group stands.
 */
function compileSchema(schema: JsonSchema, at: string, compilation: Compilation): Check {
  for (const keyword of Object.keys(schema)) {
    if (!KEYWORDS.has(keyword)) {
      throw new Error(`schema at ${at} uses ${keyword}, which this validator does not implement`);
    }
  }
  if (schema.$schema !== undefined && schema.$schema !== DIALECT) {
    throw new Error(`schema at ${at} names dialect ${String(schema.$schema)}, not ${DIALECT}`);
  }
  if (schema.$defs !== undefined && schema !== compilation.root) {
    throw new Error(`schema at ${at} has $defs; only the root schema may define them`);
  }
  if (schema.description !== undefined && typeof schema.description !== "string") {
    throw new Error(`schema at ${at} has a description that is not a string`);
  }

  const types = typeList(schema.type, at);
  const has = (keywords: string[]) => keywords.some((keyword) => schema[keyword] !== undefined);
  const groupOwnsType = types.length === 1 && (
    (types[0] === "number" && has(NUMBER_KEYWORDS)) ||
    (types[0] === "string" && has(STRING_KEYWORDS)) ||
    (types[0] === "array" && has(ARRAY_KEYWORDS)) ||
    (types[0] === "object" && has(OBJECT_KEYWORDS))
  );
  const typeError: Check = (_value, report) => fail(report, "type", { type: schema.type }, schema);
  const typeErrorIn = (group: TypeName) => groupOwnsType && types[0] === group ? typeError : null;

  const steps: Check[] = [];
  if (types.length > 0 && !groupOwnsType) steps.push(typeCheck(types, typeError));
  if (schema.$ref !== undefined) steps.push(reference(stringAt(schema, "$ref", at), compilation));
  if (Object.hasOwn(schema, "const")) steps.push(constCheck(schema));
  if (schema.enum !== undefined) steps.push(enumCheck(schema, at));
  if (schema.oneOf !== undefined) steps.push(oneOfCheck(schema, at, compilation));
  if (has(NUMBER_KEYWORDS)) {
    steps.push(group(isNumber, numberCheck(schema, at), typeErrorIn("number")));
  }
  if (has(STRING_KEYWORDS)) {
    steps.push(group(isString, stringCheck(schema, at), typeErrorIn("string")));
  }
  if (has(ARRAY_KEYWORDS)) {
    steps.push(group(Array.isArray, arrayCheck(schema, at, compilation), typeErrorIn("array")));
  }
  if (has(OBJECT_KEYWORDS)) {
    steps.push(group(isJsonObject, objectCheck(schema, at, compilation), typeErrorIn("object")));
  }
  return all(steps);
}

/** Runs every check; without a report it stops at the first that fails. */
function all<T>(checks: Check<T>[]): Check<T> {
  if (checks.length === 1) return checks[0];
  return (value, report) => {
    let valid = true;
    for (const check of checks) {
      if (!check(value, report)) {
        if (!report) return false;
        valid = false;
      }
    }
    return valid;
  };
}

/** A keyword group: its checks for a value of its type, else the type error if it owns one. */
function group<T>(
  isType: (value: unknown) => value is T,
  checks: Check<T>,
  typeError: Check | null,
): Check {
  return (value, report) => {
    if (isType(value)) return checks(value, report);
    return typeError ? typeError(value, report) : true;
  };
}

function fail(
  report: Report | null,
  keyword: string,
  params: Record<string, unknown>,
  parentSchema: JsonSchema,
): false {
  report?.errors.push({ keyword, instancePath: pointer(report.path), params, parentSchema });
  return false;
}

/** Checks `value[key]` with the report's path one step deeper. */
function checkAt(check: Check, value: unknown, key: string | number, report: Report | null) {
  if (!report) return check(value, null);
  report.path.push(key);
  const valid = check(value, report);
  report.path.pop();
  return valid;
}

function pointer(path: (string | number)[]): string {
  let result = "";
  for (const key of path) {
    result += "/" +
      (typeof key === "number" ? key : key.replaceAll("~", "~0").replaceAll("/", "~1"));
  }
  return result;
}

function typeList(type: unknown, at: string): TypeName[] {
  if (type === undefined) return [];
  const names = Array.isArray(type) ? type : [type];
  if (names.length === 0 || !names.every(isTypeName)) {
    throw new Error(`schema at ${at} has type ${JSON.stringify(type)}, not JSON Schema type names`);
  }
  return names;
}

function typeCheck(types: TypeName[], typeError: Check): Check {
  const tests = types.map((type) => IS_TYPE[type]);
  if (tests.length === 1) {
    const test = tests[0];
    return (value, report) => test(value) || typeError(value, report);
  }
  return (value, report) => {
    for (const test of tests) if (test(value)) return true;
    return typeError(value, report);
  };
}

function constCheck(schema: JsonSchema): Check {
  const allowedValue = schema.const;
  return (value, report) =>
    deepEqual(value, allowedValue) || fail(report, "const", { allowedValue }, schema);
}

function enumCheck(schema: JsonSchema, at: string): Check {
  const allowedValues = schema.enum;
  if (!Array.isArray(allowedValues) || allowedValues.length === 0) {
    throw new Error(`schema at ${at} has an enum that is not a non-empty array`);
  }
  return (value, report) => {
    for (const allowed of allowedValues) if (deepEqual(value, allowed)) return true;
    return fail(report, "enum", { allowedValues }, schema);
  };
}

/**
 * Exactly one branch must hold. Like ajv, it stops once two hold; the branches' own errors are
 * kept when none holds and dropped when exactly one does.
 */
function oneOfCheck(schema: JsonSchema, at: string, compilation: Compilation): Check {
  const list = schema.oneOf;
  if (!Array.isArray(list) || list.length === 0) {
    throw new Error(`schema at ${at} has a oneOf that is not a non-empty array`);
  }
  const branches = list.map((branch, i) =>
    compileSchema(schemaObject(branch, `${at}/oneOf/${i}`), `${at}/oneOf/${i}`, compilation)
  );
  return (value, report) => {
    const errorsBefore = report ? report.errors.length : 0;
    let first = -1;
    for (let i = 0; i < branches.length; i++) {
      if (!branches[i](value, report)) continue;
      if (first >= 0) {
        return fail(report, "oneOf", { passingSchemas: [first, i] }, schema);
      }
      first = i;
    }
    if (first < 0) return fail(report, "oneOf", { passingSchemas: null }, schema);
    if (report) report.errors.length = errorsBefore;
    return true;
  };
}

// A type's keywords are one closure, not one per keyword: they sit under every property of
// every call. Each is written as ajv writes it (fail when beyond a limit), so NaN passes as it
// does there.
function numberCheck(schema: JsonSchema, at: string): Check<number> {
  const maximum = optionalNumber(schema, "maximum", at);
  const minimum = optionalNumber(schema, "minimum", at);
  const exclusiveMinimum = optionalNumber(schema, "exclusiveMinimum", at);
  return (value, report) => {
    let valid = true;
    if (maximum !== undefined && value > maximum) {
      if (!report) return false;
      valid = fail(report, "maximum", { limit: maximum }, schema);
    }
    if (minimum !== undefined && value < minimum) {
      if (!report) return false;
      valid = fail(report, "minimum", { limit: minimum }, schema);
    }
    if (exclusiveMinimum !== undefined && value <= exclusiveMinimum) {
      if (!report) return false;
      valid = fail(report, "exclusiveMinimum", { limit: exclusiveMinimum }, schema);
    }
    return valid;
  };
}

function stringCheck(schema: JsonSchema, at: string): Check<string> {
  const maxLength = optionalCount(schema, "maxLength", at);
  const minLength = optionalCount(schema, "minLength", at);
  const pattern = schema.pattern === undefined ? undefined : stringAt(schema, "pattern", at);
  const regExp = pattern === undefined ? undefined : unicodeRegExp(pattern, at);
  return (value, report) => {
    let valid = true;
    // A string has no more code points than UTF-16 units, and at least half as many, so only
    // a string near a limit needs its code points counted.
    if (maxLength !== undefined && value.length > maxLength && codePoints(value) > maxLength) {
      if (!report) return false;
      valid = fail(report, "maxLength", { limit: maxLength }, schema);
    }
    if (minLength !== undefined && value.length < 2 * minLength && codePoints(value) < minLength) {
      if (!report) return false;
      valid = fail(report, "minLength", { limit: minLength }, schema);
    }
    if (regExp !== undefined && !regExp.test(value)) {
      if (!report) return false;
      valid = fail(report, "pattern", { pattern }, schema);
    }
    return valid;
  };
}

function unicodeRegExp(pattern: string, at: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch (error) {
    throw new Error(`schema at ${at} has a pattern that is not a Unicode regular expression`, {
      cause: error,
    });
  }
}

/** Code points, as ajv counts lengths: a surrogate pair is one, a lone surrogate one too. */
function codePoints(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++, count++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

function arrayCheck(schema: JsonSchema, at: string, compilation: Compilation): Check<unknown[]> {
  const maxItems = optionalCount(schema, "maxItems", at);
  const minItems = optionalCount(schema, "minItems", at);
  const where = `${at}/items`;
  const item = schema.items === undefined
    ? undefined
    : compileSchema(schemaObject(schema.items, where), where, compilation);
  return (value, report) => {
    let valid = true;
    if (maxItems !== undefined && value.length > maxItems) {
      if (!report) return false;
      valid = fail(report, "maxItems", { limit: maxItems }, schema);
    }
    if (minItems !== undefined && value.length < minItems) {
      if (!report) return false;
      valid = fail(report, "minItems", { limit: minItems }, schema);
    }
    if (item !== undefined) {
      for (let i = 0; i < value.length; i++) {
        if (!checkAt(item, value[i], i, report)) {
          if (!report) return false;
          valid = false;
        }
      }
    }
    return valid;
  };
}

/**
 * `required`, `additionalProperties` and `properties` as one check. Explaining, they run one
 * after the other as ajv runs them; otherwise one pass over the value's keys settles all three,
 * since the order does not change a yes-or-no answer and this is every tool call's hot path.
 */
function objectCheck(
  schema: JsonSchema,
  at: string,
  compilation: Compilation,
): Check<Record<string, unknown>> {
  const checks: Check<Record<string, unknown>>[] = [];
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
    throw new Error(`schema at ${at} has a required that is not an array of names`);
  }
  if (required.length > 0) {
    checks.push((value, report) => {
      let valid = true;
      for (const name of required) {
        if (!Object.hasOwn(value, name)) {
          if (!report) return false;
          valid = fail(report, "required", { missingProperty: name }, schema);
        }
      }
      return valid;
    });
  }
  const properties = new Map<string, Check>();
  if (schema.properties !== undefined) {
    for (const [name, property] of Object.entries(schemaMap(schema.properties, at))) {
      const where = `${at}/properties/${name}`;
      properties.set(name, compileSchema(property, where, compilation));
    }
  }
  const additional = schema.additionalProperties;
  let additionalCheck: Check | null = null;
  if (additional === false) {
    checks.push((value, report) => {
      let valid = true;
      for (const key in value) {
        if (!properties.has(key)) {
          if (!report) return false;
          valid = fail(report, "additionalProperties", { additionalProperty: key }, schema);
        }
      }
      return valid;
    });
  } else if (additional !== undefined && additional !== true) {
    const where = `${at}/additionalProperties`;
    const check = compileSchema(schemaObject(additional, where), where, compilation);
    additionalCheck = check;
    checks.push((value, report) => {
      let valid = true;
      for (const key in value) {
        if (!properties.has(key) && !checkAt(check, value[key], key, report)) {
          if (!report) return false;
          valid = false;
        }
      }
      return valid;
    });
  }
  if (properties.size > 0) {
    const names = [...properties.keys()];
    const propertyChecks = [...properties.values()];
    checks.push((value, report) => {
      let valid = true;
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        if (Object.hasOwn(value, name) && !checkAt(propertyChecks[i], value[name], name, report)) {
          if (!report) return false;
          valid = false;
        }
      }
      return valid;
    });
  }
  const explain = all(checks);
  const known = new Map<string, { check: Check | null; required: boolean }>();
  for (const [name, check] of properties) known.set(name, { check, required: false });
  const requiredNames = new Set(required);
  for (const name of requiredNames) {
    known.set(name, { check: properties.get(name) ?? null, required: true });
  }
  const closed = additional === false;
  const otherCheck = additionalCheck;
  return (value, report) => {
    if (report) return explain(value, report);
    let requiredSeen = 0;
    for (const key in value) {
      const property = known.get(key);
      if (property === undefined) {
        if (closed || (otherCheck && !otherCheck(value[key], null))) return false;
      } else {
        if (property.check && !property.check(value[key], null)) return false;
        if (property.required) requiredSeen++;
      }
    }
    return requiredSeen === requiredNames.size;
  };
}

/** Equality of JSON values: primitives by identity, arrays and objects by their contents. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (!isJsonObject(a) || !isJsonObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
}

function isNumber(value: unknown): value is number {
  return typeof value === "number";
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isSchemaObject(value: unknown): value is JsonSchema {
  return isJsonObject(value);
}

function schemaObject(value: unknown, at: string): JsonSchema {
  if (!isSchemaObject(value)) throw new Error(`schema at ${at} is not a schema object`);
  return value;
}

function schemaMap(value: unknown, at: string): Record<string, JsonSchema> {
  if (!isJsonObject(value)) {
    throw new Error(`schema at ${at} maps names to something not an object`);
  }
  const map: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(value)) {
    map[name] = schemaObject(schema, `${at}/${name}`);
  }
  return map;
}

function stringAt(schema: JsonSchema, keyword: string, at: string): string {
  const value = schema[keyword];
  if (typeof value !== "string") {
    throw new Error(`schema at ${at} has a ${keyword} that is not a string`);
  }
  return value;
}

function optionalNumber(schema: JsonSchema, keyword: string, at: string): number | undefined {
  const value = schema[keyword];
  if (value === undefined || (typeof value === "number" && Number.isFinite(value))) return value;
  throw new Error(`schema at ${at} has a ${keyword} that is not a number`);
}

function optionalCount(schema: JsonSchema, keyword: string, at: string): number | undefined {
  const value = schema[keyword];
  if (value === undefined || (Number.isInteger(value) && typeof value === "number" && value >= 0)) {
    return value;
  }
  throw new Error(`schema at ${at} has a ${keyword} that is not a non-negative integer`);
}
