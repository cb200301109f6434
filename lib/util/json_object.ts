// What a parsed JSON value must be before its fields are read: an object, not null and not an
// array. One predicate for the wire formats (JSON-RPC, the helper's frame headers) and the schema
// checks, so they cannot drift apart on what counts as an object.

/** A JSON object (not null, not an array), whose fields are still to be checked. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
