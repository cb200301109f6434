// Every third-party import of the server, pinned with full `npm:` specifiers in one place. A
// remote `deno run https://…/main.ts` does not read deno.json's import map, so bare specifiers
// would not resolve there; full specifiers work from a checkout, a URL and a bundle alike.
// From the MCP SDK the server takes only types, which cost nothing at run time: its Server and
// zod schemas held about 27 MiB of the process's memory (lib/mcp/wire/mcp_session.ts speaks MCP), and
// ajv 15 MiB more (lib/mcp/schema_validator.ts checks inputs; ajv checks it in the tests).
export type {
  CallToolResult,
  JSONRPCMessage,
  Tool,
} from "npm:@modelcontextprotocol/sdk@1.32.2/types.js";
export type { Transport } from "npm:@modelcontextprotocol/sdk@1.32.2/shared/transport.js";

/**
 * RE2JS (a port of RE2: matching in time linear in the text) for the callers' regexes
 * (lib/line_patterns.ts), loaded on first use: importing it took 5.6 MiB of resident memory,
 * which a server that is never given a regex does not pay.
 */
export const loadRe2js = () => import("npm:re2js@2.10.0");
