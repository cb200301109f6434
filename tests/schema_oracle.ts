// ajv, the reference JSON Schema 2020-12 validator, as the tests' oracle for every tool result
// (the server checks inputs with ajv too, lib/mcp/schemas.ts, but the results it sends are held
// here, apart from its code). One module, so the real-tmux suite and the unit tests beside lib/
// share one configuration.
import { Ajv2020 } from "./test_deps.ts";
import type { JsonSchema, Schema } from "../lib/mcp/json_schema.ts";

const ajv = new Ajv2020({ allErrors: false, strict: false });

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
