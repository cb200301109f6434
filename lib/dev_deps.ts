// Third-party code the MCP server itself never loads, pinned like lib/deps.ts: the SDK's client
// side, for the demo's and the smoke check's client of this program (lib/cli/self_client.ts) and
// for the benchmarks. A module apart, because importing any name from a module evaluates all of
// it: the server's memory should not hold a client it never runs.
export { Client } from "npm:@modelcontextprotocol/sdk@1.32.2/client/index.js";
export { StdioClientTransport } from "npm:@modelcontextprotocol/sdk@1.32.2/client/stdio.js";
export { CallToolResultSchema } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export type { JSONRPCMessage } from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";
// bench/big_output.ts times the SDK's line reader on its own.
export { ReadBuffer } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/stdio.js";
