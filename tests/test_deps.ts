// Test-only imports, pinned like lib/deps.ts: the MCP client the tests drive the server with.
export { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
export { InMemoryTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/inMemory.js";
export { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
export { LoggingMessageNotificationSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
// The reference JSON Schema validator: tests check every result, and our own validator, with it.
export { Ajv2020 } from "npm:ajv@8.20.0/dist/2020.js";
