// How listings stay bounded: each keeps its last MAX_LISTED rows and counts the ones it cut,
// as its answer and its output schema say; and a tmux client's output as its rows.
import { array, integer, type JsonSchema, object, type Schema } from "../mcp/json_schema.ts";
import { toolOutput } from "./_define.ts";
import { success, type ToolPayload } from "../mcp/tool_payload.ts";

/** The most rows a listing returns; past it the oldest are cut and counted. */
export const MAX_LISTED = 1000;

/** A listing's answer: the last MAX_LISTED `items` under `field`, and how many were cut. */
export function listed(field: string, items: unknown[]): ToolPayload {
  const truncated = Math.max(0, items.length - MAX_LISTED);
  return success({ [field]: items.slice(truncated), truncated });
}

/** A listing's output schema: its rows (each a `row`) under `field`, and how many were cut. */
export function listingOutput(field: string, row: Schema<unknown>): JsonSchema {
  return toolOutput(object([field, "truncated"], {
    [field]: array({ items: row }),
    truncated: integer({ minimum: 0 }),
  }));
}

/** A client's output as its lines, without the empty ones. */
export function rows(stdout: string): string[] {
  return stdout.split("\n").filter((line) => line !== "");
}
