// Test-only imports, pinned like lib/deps.ts: the MCP clients the tests drive the server with
// (the SDK v2 client, and the 1.32.2 client of the 2025-era line for one interop test).
export { Client, InMemoryTransport } from "npm:@modelcontextprotocol/client@2.4.0";
export { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
// The host side of the Skills extension: lists, gets and reads a skill, verifying each file.
export { SkillsClient } from "npm:@modelcontextprotocol/client@2.4.0/ext/skills";
export { Client as V1Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
export { StdioClientTransport as V1StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
// The reference JSON Schema validator: tests check every result with it.
export { Ajv2020 } from "npm:ajv@8.20.0/dist/2020.js";
// The official requester of MCP tasks, to run tmux_run as a task the way clients will.
export {
  createTaskSessionFromClient,
  type JsonRpcResponse,
  resultFromTaskOutcome,
} from "npm:@modelcontextprotocol/ext-tasks@0.2.2/client";
