// Third-party code the MCP server itself never loads, pinned like lib/deps.ts: the SDK's client
// side, for the demo's and the smoke check's client of this program (lib/cli/self_client.ts) and
// for the benchmarks. A module apart, because importing any name from a module evaluates all of
// it: the server's memory should not hold a client it never runs.
export { Client, ReadBuffer } from "npm:@modelcontextprotocol/client@2.4.0";
export type { JSONRPCMessage, Transport } from "npm:@modelcontextprotocol/client@2.4.0";
export { StdioClientTransport } from "npm:@modelcontextprotocol/client@2.4.0/stdio";
