// The JSON Schemas the server advertises, loaded as JSON modules so they travel with the code
// (checkout, URL or bundle), and compiled once with ajv's 2020-12 build: the same validator
// checks tool inputs at the edge and, in tests, every result.
import { Ajv2020 } from "./deps.ts";
import tmuxRunInput from "../schemas/tmux_run.input.schema.json" with { type: "json" };
import tmuxRunOutput from "../schemas/tmux_run.output.schema.json" with { type: "json" };
import capabilitiesOutput from "../schemas/tmux_capabilities.output.schema.json" with {
  type: "json",
};
import emptyInput from "../schemas/empty.input.schema.json" with { type: "json" };

export type JsonSchema = Record<string, unknown>;

export const schemas = {
  tmuxRunInput,
  tmuxRunOutput,
  capabilitiesOutput,
  emptyInput,
} as Record<string, JsonSchema>;

const ajv = new Ajv2020({ allErrors: false, strict: false });
const compiled = new WeakMap<JsonSchema, (value: unknown) => boolean>();

/** True when `value` is valid against `schema`; validators are compiled once per schema. */
export function isValid(schema: JsonSchema, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    const compiledSchema = ajv.compile(schema);
    validate = (v: unknown) => compiledSchema(v) as boolean;
    compiled.set(schema, validate);
  }
  return validate(value);
}

/** The validator's explanation of why `value` fails `schema`, for tests only. */
export function validationErrors(schema: JsonSchema, value: unknown): string {
  const validate = ajv.compile(schema);
  validate(value);
  return ajv.errorsText(validate.errors);
}
