// JSON-RPC 2.0 as the stdio transport reads it: the error codes, and which of the four message
// forms a parsed line is, so that a line the SDK would drop in silence is answered here, before
// the SDK sees it. @modelcontextprotocol/server 2.4.0 (serveStdio, and the Protocol it hands
// messages to) tells a request from other messages with its zod schema JSONRPCRequestSchema; a
// request that fails it is taken for a response ("Discarded a JSON-RPC response received before
// the connection negotiated an era") or an unknown message (onerror), and is never answered.
// It fails for params that are not an object, `params._meta` that is not an object (null, an
// array, a string, a number), a `_meta.progressToken` that is not a string or an integer, a
// `_meta["io.modelcontextprotocol/related-task"]` without a string taskId, and an id that is not
// a string or a safe integer (zod 4's `int()` refuses 2^53 and beyond). Our own session answered
// the progress-token and large-id shapes until the SDK took over (6778e36): it read a bad token
// as no progress and took any integer as an id. Each is answered here: -32602 for the params,
// -32600 for the id.
import type { JSONRPCMessage } from "../../deps.ts";
import { isJsonObject } from "../../util/json_object.ts";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

export type JsonRpcId = string | number;

/**
 * A numeric id that JavaScript cannot hold exactly (beyond ±(2^53−1), or not an integer), kept
 * as the digits the line carried. Its error answer echoes those digits as they came rather than
 * null: a client that sent them (Python, Go, Rust read such integers exactly) finds its request
 * by them, where a null id would leave it waiting until its own timeout.
 */
export class IdLiteral {
  constructor(readonly text: string) {}
}

/** The id an error answer carries: as sent, or null when the message's id could not be read. */
export type AnswerId = JsonRpcId | IdLiteral | null;

/** An error this side writes itself, for a message the SDK never sees. */
export type ErrorAnswer = {
  jsonrpc: "2.0";
  id: AnswerId;
  error: { code: number; message: string };
};

export function errorAnswer(id: AnswerId, code: number, message: string): ErrorAnswer {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/** The JSON text of an answer, an IdLiteral id written as the digits it came as. */
export function answerJson(answer: JSONRPCMessage | ErrorAnswer): string {
  if ("error" in answer && answer.id instanceof IdLiteral) {
    return `{"jsonrpc":"2.0","id":${answer.id.text},"error":${JSON.stringify(answer.error)}}`;
  }
  return JSON.stringify(answer);
}

/** Why a parsed object is not a message the SDK takes, and the code that answers it. */
export type Refusal = { code: typeof INVALID_REQUEST | typeof INVALID_PARAMS; reason: string };

const RELATED_TASK = "io.modelcontextprotocol/related-task";
const SAFE_RANGE = "between -9007199254740991 and 9007199254740991 (2^53-1)";

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || Number.isSafeInteger(value);
}

/**
 * `line` parsed as JSON (throwing as JSON.parse does), with the top-level id of the message, or
 * of each member of a batch, kept as an IdLiteral when it is a number JavaScript cannot hold
 * exactly. Only such a line is parsed a second time, with a reviver that sees the source text.
 */
export function parseMessageLine(line: string): unknown {
  const json: unknown = JSON.parse(line);
  const messages = Array.isArray(json) ? json : [json];
  if (!messages.some(hasInexactId)) return json;
  const literals = new Map<unknown, string>();
  const again: unknown = JSON.parse(
    line,
    function (this: unknown, key: string, value: unknown, context?: { source?: string }) {
      if (key === "id" && context?.source !== undefined) literals.set(this, context.source);
      return value;
    },
  );
  for (const message of Array.isArray(again) ? again : [again]) {
    const literal = literals.get(message);
    if (hasInexactId(message) && literal !== undefined) message.id = new IdLiteral(literal);
  }
  return again;
}

function hasInexactId(message: unknown): message is Record<string, unknown> {
  return isJsonObject(message) && typeof message.id === "number" &&
    !Number.isSafeInteger(message.id);
}

/**
 * `json` as a JSON-RPC 2.0 message the SDK takes, or why it is not one, naming the field. Params,
 * when present, must be an object, and so must its `_meta`; what else they hold is each
 * method's business, checked by the SDK, which answers those itself.
 */
export function jsonRpcMessageOf(json: Record<string, unknown>): JSONRPCMessage | Refusal {
  const { jsonrpc, id, method, params, result, error } = json;
  if (jsonrpc !== "2.0") return invalidRequest('jsonrpc: must be "2.0"');
  if (typeof method === "string") {
    if (id !== undefined && !isId(id)) return invalidRequest(idRule());
    if (params !== undefined && !isJsonObject(params)) {
      return invalidParams("params: must be an object; send an object or leave it out");
    }
    const metaProblem = params === undefined ? null : requestMetaProblem(params._meta);
    if (metaProblem) return invalidParams(metaProblem);
    const withParams = params === undefined ? {} : { params };
    if (id === undefined) return { jsonrpc, method, ...withParams };
    return { jsonrpc, id, method, ...withParams };
  }
  if (method !== undefined) return invalidRequest("method: must be a string");
  if (!isId(id)) return invalidRequest(idRule());
  if (isJsonObject(result)) return { jsonrpc, id, result };
  if (isJsonObject(error) && Number.isInteger(error.code) && typeof error.message === "string") {
    return { jsonrpc, id, error: { code: Number(error.code), message: error.message } };
  }
  return invalidRequest("a message needs a method, a result object or an error object");
}

function idRule(): string {
  return `id: must be a string or an integer ${SAFE_RANGE}; send a string id or a smaller integer`;
}

/** What is wrong with a request's `params._meta` for the SDK's schema, or null. */
function requestMetaProblem(meta: unknown): string | null {
  if (meta === undefined) return null;
  if (!isJsonObject(meta)) return "params._meta: must be an object; send an object or leave it out";
  const token = meta.progressToken;
  if (token !== undefined && !isId(token)) {
    return `params._meta.progressToken: must be a string or an integer ${SAFE_RANGE}; ` +
      "send one of those or leave it out";
  }
  const related = meta[RELATED_TASK];
  if (related !== undefined && !(isJsonObject(related) && typeof related.taskId === "string")) {
    return `params._meta["${RELATED_TASK}"]: must be an object with a string taskId; ` +
      "send one or leave it out";
  }
  return null;
}

function invalidRequest(reason: string): Refusal {
  return { code: INVALID_REQUEST, reason };
}

function invalidParams(reason: string): Refusal {
  return { code: INVALID_PARAMS, reason };
}
