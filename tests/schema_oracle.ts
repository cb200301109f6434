// ajv, the reference JSON Schema 2020-12 validator, as the tests' oracle. The server checks
// inputs with its own small validator (lib/mcp/schema_validator.ts) to keep ajv out of its
// memory; the tests keep ajv, configured as the server once used it (`strict: false`), to check
// every tool result and to hold that validator to ajv's verdicts and errors. One module, so the
// real-tmux suite and the unit tests beside lib/ share one configuration.
import { Ajv2020 } from "./test_deps.ts";
import type { JsonSchema, Schema } from "../lib/mcp/json_schema.ts";

const ajv = new Ajv2020({ allErrors: false, strict: false });
const explainer = new Ajv2020({ allErrors: true, strict: false, verbose: true });

/** ajv's verdict on `value`, as a type guard. ajv caches by schema object. */
export function ajvAccepts<T>(schema: Schema<T>, value: unknown): value is T {
  return ajv.compile<T>(schema)(value);
}

/** ajv's explanation of why `value` fails `schema`, for assertion messages. */
export function validationErrors(schema: JsonSchema, value: unknown): string {
  const validate = ajv.compile(schema);
  validate(value);
  return ajv.errorsText(validate.errors);
}

/** Every error ajv finds in `value` (`allErrors`, `verbose`), as its error objects. */
export function ajvErrors(schema: JsonSchema, value: unknown) {
  const validate = explainer.compile(schema);
  validate(value);
  return validate.errors ?? [];
}
