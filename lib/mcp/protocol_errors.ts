// JSON-RPC errors as MCP clients expect them. A request whose params do not have its method's
// shape is refused here with -32602 and one line naming the first field at fault (left to the
// SDK it is -32603, or -32602 with a multi-line dump of its validator's issues), and no error
// this server sends spans more than one line. It wraps the transport the SDK's server is
// connected to.
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  type JSONRPCMessage,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type MessageExtraInfo,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  type Transport,
  type TransportSendOptions,
} from "../deps.ts";

/** MCP's code for a resource URI that names nothing (the SDK has no constant for it). */
export const RESOURCE_NOT_FOUND = -32002;

const LONGEST_MESSAGE = 300;

type Issue = { path: readonly PropertyKey[]; message: string };
type Shape = {
  safeParse(value: unknown): { success: true } | { success: false; error: { issues: Issue[] } };
};

const REQUEST_SHAPES = new Map<string, Shape>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["logging/setLevel", SetLevelRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
  ["resources/list", ListResourcesRequestSchema],
  ["resources/templates/list", ListResourceTemplatesRequestSchema],
  ["resources/read", ReadResourceRequestSchema],
  ["prompts/list", ListPromptsRequestSchema],
  ["prompts/get", GetPromptRequestSchema],
]);

/** The first issue as `field: what is wrong`, on one line, without the value. */
export function describeIssue(issues: Issue[]): string {
  const issue = issues[0];
  if (!issue) return "the message does not have the expected shape";
  const path = issue.path.map(String).join(".") || "(the message)";
  return oneLine(`${path}: ${issue.message}`);
}

function oneLine(text: string): string {
  // McpError prefixes "MCP error -32602: " to its message; the code is in the response already.
  const flat = text.replace(/^MCP error -?\d+: /, "").replace(/\s*\n\s*/g, " ").trim();
  return flat.length > LONGEST_MESSAGE ? `${flat.slice(0, LONGEST_MESSAGE - 1)}…` : flat;
}

/** The error response for a request whose params have the wrong shape, or null. */
export function malformedParams(message: JSONRPCMessage): JSONRPCMessage | null {
  if (!("method" in message) || !("id" in message)) return null;
  const shape = REQUEST_SHAPES.get(message.method);
  if (!shape) return null;
  const parsed = shape.safeParse(message);
  if (parsed.success) return null;
  return {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `invalid params for ${message.method}: ${describeIssue(parsed.error.issues)}`,
    },
  };
}

/** Keeps every outgoing error message to one bounded line. */
function flattened(message: JSONRPCMessage): JSONRPCMessage {
  if (!("error" in message)) return message;
  return { ...message, error: { ...message.error, message: oneLine(message.error.message) } };
}

/** `inner`, with malformed requests answered here and error messages kept to one line. */
export function checkedTransport(inner: Transport): Transport {
  const checked: Transport = {
    start: () => inner.start(),
    close: () => inner.close(),
    send: (message: JSONRPCMessage, options?: TransportSendOptions) =>
      inner.send(flattened(message), options),
    setProtocolVersion: (version: string) => inner.setProtocolVersion?.(version),
  };
  Object.defineProperty(checked, "sessionId", { get: () => inner.sessionId });
  inner.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    const refusal = malformedParams(message);
    if (refusal) inner.send(refusal).catch((error: Error) => checked.onerror?.(error));
    else checked.onmessage?.(message, extra);
  };
  inner.onclose = () => checked.onclose?.();
  inner.onerror = (error: Error) => checked.onerror?.(error);
  return checked;
}
