// The general tools' JSON Schemas are written in TypeScript with these builders, so one object
// is both the schema tools/list advertises and, for the type checker, the type of the values
// it accepts: a handler's arguments derive from its schema, and a misspelled property or a
// `required` key the schema does not define fails `deno check` rather than a request.
// Our own small builder, not TypeBox or json-schema-to-ts: TypeBox's objects carry symbol keys
// (Kind, Optional) that would ride into deep comparisons, and it writes unions as `anyOf` where
// the advertised schemas say `enum` and `type: [..., "null"]`, so the advertised JSON would
// change; json-schema-to-ts would add a dependency for what a few mapped types do here. Each
// builder returns a plain object with its keys in the order written; the value type lives
// only in the type system (an optional property under a type-only symbol that no object ever
// has), so what is advertised stays plain, self-contained JSON Schema 2020-12.

export type JsonSchema = Record<string, unknown>;

declare const valueType: unique symbol;

/** A JSON Schema that, for the type checker, also names the type of the values it accepts. */
export type Schema<T> = JsonSchema & { readonly [valueType]?: T };

/** The type of the values `S` accepts. */
export type Static<S> = S extends Schema<infer T> ? T : never;

export const DIALECT = "https://json-schema.org/draft/2020-12/schema";

type Described = { description?: string };
type StringRules = Described & { minLength?: number; maxLength?: number; pattern?: string };
type NumberRules = Described & {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
};
type ArrayRules<I> = Described & { minItems?: number; maxItems?: number; items: I };

export function string(rules: StringRules = {}): Schema<string> {
  return { type: "string", ...rules };
}

export function integer(rules: NumberRules = {}): Schema<number> {
  return { type: "integer", ...rules };
}

export function number(rules: NumberRules = {}): Schema<number> {
  return { type: "number", ...rules };
}

export function boolean(rules: Described = {}): Schema<boolean> {
  return { type: "boolean", ...rules };
}

type Nullable = { string: string; integer: number };

/** `{"type": [type, "null"]}`. */
export function nullable<K extends keyof Nullable>(type: K): Schema<Nullable[K] | null> {
  return { type: [type, "null"] };
}

/** One of a fixed list of values (`enum`). */
export function enumOf<const V extends readonly (string | null)[]>(
  values: V,
  rules: Described = {},
): Schema<V[number]> {
  return { enum: values, ...rules };
}

export function constant<const V extends string | boolean | null>(value: V): Schema<V> {
  return { const: value };
}

/** An array; `items` sits among the rules so the keys keep the order they are written in. */
export function array<T>(rules: ArrayRules<Schema<T>>): Schema<T[]> {
  return { type: "array", ...rules };
}

/** Exactly one of `schemas` (`oneOf`): a value of any of their types. */
export function oneOf<const S extends readonly Schema<unknown>[]>(
  schemas: S,
): Schema<Static<S[number]>> {
  return { oneOf: schemas };
}

type Properties = Record<string, Schema<unknown>>;

/** The required properties as given, the rest optional. */
type ObjectOf<P extends Properties, R extends keyof P> =
  & { [K in R]: Static<P[K]> }
  & { [K in Exclude<keyof P, R>]?: Static<P[K]> };

/** Flattens an intersection so editors show one object type. */
type Flat<T> = { [K in keyof T]: T[K] };

/** A closed object (no other properties); every name in `required` must be a property. */
export function object<P extends Properties, const R extends readonly (keyof P & string)[]>(
  required: R,
  properties: P,
): Schema<Flat<ObjectOf<P, R[number]>>> {
  return { type: "object", additionalProperties: false, required, properties };
}

/** A tool's input: a closed object at the top level of a schema document. */
export function toolInput<P extends Properties, const R extends readonly (keyof P & string)[]>(
  required: R,
  properties: P,
): Schema<Flat<ObjectOf<P, R[number]>>> {
  return { $schema: DIALECT, type: "object", additionalProperties: false, required, properties };
}
