// Every third-party import of the server, pinned with full `npm:` specifiers in one place. A
// remote `deno run https://…/main.ts` does not read deno.json's import map, so bare specifiers
// would not resolve there; full specifiers work from a checkout, a URL and a bundle alike.
// The official MCP SDK (v2) speaks the protocol, both eras from one factory (serveStdio), and
// serves the skill for agents through its Skills extension (lib/server/skills.ts); ajv,
// the validator the SDK itself is built on, checks tool inputs. The SDK bundles its own ajv but
// does not export the 2020-12 class, so ajv is pinned here at the SDK's version (its docs' way).
// bench/bench.ts measures what they cost against a bare SDK server in the same run.
export { Server } from "npm:@modelcontextprotocol/server@2.4.0";
export type {
  CallToolResult,
  JSONRPCMessage,
  ServerContext as McpRequestContext,
  Task,
  TaskStatus,
  Tool,
  Transport,
} from "npm:@modelcontextprotocol/server@2.4.0";
export {
  fromJsonSchema,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
} from "npm:@modelcontextprotocol/server@2.4.0";
export type {
  McpServer,
  ReadResourceResult,
  ReadResourceTemplateCallback,
  Resource,
  ResourceMetadata,
  ResourceTemplate,
  Variables,
} from "npm:@modelcontextprotocol/server@2.4.0";
export { serveStdio } from "npm:@modelcontextprotocol/server@2.4.0/stdio";
export { skillEntry, SkillsExtension } from "npm:@modelcontextprotocol/server@2.4.0/ext/skills";
export type { SkillSource } from "npm:@modelcontextprotocol/server@2.4.0/ext/skills";
export { Ajv2020 } from "npm:ajv@8.20.0/dist/2020.js";

/**
 * RE2JS (a port of RE2: matching in time linear in the text) for the callers' regexes
 * (lib/util/line_patterns.ts), loaded on first use: importing it took 5.6 MiB of resident memory,
 * which a server that is never given a regex does not pay.
 */
export const loadRe2js = () => import("npm:re2js@2.10.0");
