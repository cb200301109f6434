// JSON-RPC 2.0 as the stdio transport reads it: the error codes, and which of the four message
// forms a parsed line is, so that a line the SDK would drop in silence (not JSON-RPC, params
// that are not an object) is answered here, before the SDK sees it.
import type { JSONRPCMessage } from "../../deps.ts";
import { isJsonObject } from "../../util/json_object.ts";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export type JsonRpcId = string | number;

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || (typeof value === "number" && Number.isInteger(value));
}

/**
 * `json` as a JSON-RPC 2.0 message, or the first reason it is not one, naming the field.
 * Params, when present, must be an object; what they hold is each method's business.
 */
export function jsonRpcMessageOf(json: Record<string, unknown>): JSONRPCMessage | string {
  const { jsonrpc, id, method, params, result, error } = json;
  if (jsonrpc !== "2.0") return 'jsonrpc: must be "2.0"';
  if (typeof method === "string") {
    if (params !== undefined && !isJsonObject(params)) return "params: must be an object";
    const withParams = params === undefined ? {} : { params };
    if (id === undefined) return { jsonrpc, method, ...withParams };
    if (!isId(id)) return "id: must be a string or an integer";
    return { jsonrpc, id, method, ...withParams };
  }
  if (method !== undefined) return "method: must be a string";
  if (!isId(id)) return "id: must be a string or an integer";
  if (isJsonObject(result)) return { jsonrpc, id, result };
  if (isJsonObject(error) && Number.isInteger(error.code) && typeof error.message === "string") {
    return { jsonrpc, id, error: { code: Number(error.code), message: error.message } };
  }
  return "a message needs a method, a result object or an error object";
}
