// Every third-party import, pinned with full `npm:` specifiers in one place. A remote
// `deno run https://…/main.ts` does not read deno.json's import map, so bare specifiers would
// not resolve there; full specifiers work from a checkout, a URL and a bundle alike.
export { Server } from "npm:@modelcontextprotocol/sdk@1.32.2/server/index.js";
export {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export type { RequestHandlerExtra } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/protocol.js";
export type {
  CallToolRequest,
  CallToolResult,
  GetPromptRequest,
  ReadResourceRequest,
  ServerNotification,
  ServerRequest,
  Tool,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export {
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  PingRequestSchema,
  SetLevelRequestSchema,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export type {
  JSONRPCMessage,
  MessageExtraInfo,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export type {
  Transport,
  TransportSendOptions,
} from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
