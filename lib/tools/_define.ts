// How a tool is defined: its handler typed by its input schema (the server parses a call's
// arguments once, with the tool's own `parse`), its output schema around the one failure shape,
// and the annotation presets that say what a client may assume about its effects.
import { DIALECT, enumOf, type JsonSchema, type Schema } from "../mcp/json_schema.ts";
import { inputProblems, isValid } from "../mcp/schemas.ts";
import type { ServerContext, ToolDefinition, ToolExtra } from "./context.ts";
import { refusal, type ToolPayload } from "../mcp/tool_payload.ts";

/** A handler that receives the type its input schema accepts. */
type TypedHandler<T> = (context: ServerContext, args: T, extra: ToolExtra) => Promise<ToolPayload>;

/** A tool whose handler receives the type its input schema accepts. */
type TypedTool<T> = Omit<ToolDefinition, "inputSchema" | "parse" | "handle"> & {
  inputSchema: Schema<T>;
  handle: TypedHandler<T>;
};

/** A catalog entry from a typed tool: its arguments parsed by its own input schema. */
export function defineTool<T>(tool: TypedTool<T>): ToolDefinition {
  return { ...tool, ...typedCall(tool.inputSchema, tool.handle, tool.fieldHints) };
}

/**
 * `parse` and `handle` for `handle` behind `schema`: `parse` is the type guard that turns
 * `unknown` into the handler's type, and answers arguments that do not fit with `invalid_input`
 * naming the problem; `handle` parses, then calls. For a tool whose advertised schema is not
 * `schema` itself (tmux_run's is the contract's file), `schema` must be equal to it, and a test
 * must say so.
 */
export function typedCall<T>(
  schema: Schema<T>,
  handle: TypedHandler<T>,
  fieldHints?: ToolDefinition["fieldHints"],
): Pick<ToolDefinition, "parse" | "handle"> {
  const parse: ToolDefinition["parse"] = (args) => {
    if (isValid(schema, args)) {
      return { ok: true, call: (context, extra) => handle(context, args, extra) };
    }
    const problems = inputProblems(schema, args, fieldHints) ?? "they do not match the schema";
    return { ok: false, payload: refusal("invalid_input", `invalid arguments: ${problems}`) };
  };
  return {
    parse,
    handle: (context, args, extra) => {
      const parsed = parse(args);
      return parsed.ok ? parsed.call(context, extra) : Promise.resolve(parsed.payload);
    },
  };
}

// Results: every tool answers `{ok: true, data}` or the one failure shape (tool_result.ts).

const FAILURE = {
  type: "object",
  additionalProperties: false,
  required: ["ok", "error"],
  properties: {
    ok: { const: false },
    error: {
      type: "object",
      additionalProperties: false,
      required: ["code", "message", "delivery"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        delivery: enumOf(["not_sent", "possibly_sent", "observed"]),
      },
    },
  },
};

/** A tool's output schema: success carrying `data`, or the failure, defined inside it. */
export function toolOutput(data: JsonSchema): JsonSchema {
  return {
    $schema: DIALECT,
    type: "object",
    oneOf: [
      {
        type: "object",
        additionalProperties: false,
        required: ["ok", "data"],
        properties: { ok: { const: true }, data },
      },
      { $ref: "#/$defs/failure" },
    ],
    $defs: { failure: FAILURE },
  };
}

// Annotations: what a client may assume about a tool's effects.

export const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/** Changes tmux structure or presentation, supplying no input to any program. */
export const CHANGES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const IDEMPOTENT_CHANGE = { ...CHANGES, idempotentHint: true };

/** Supplies input to programs or starts them: what follows is up to them. */
export const PROGRAM_INPUT = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** Removes tmux objects or retained history. */
export const DESTRUCTIVE = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};
