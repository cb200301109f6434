// Serves the skill for agents (skills/tmux-mcp/SKILL.md) through MCP's Skills extension
// (io.modelcontextprotocol/skills, SEP-2640): skills/list and skills/get name it, and its file is
// read as the resource skill://tmux-mcp/SKILL.md. The SDK does the protocol: the entry, its
// SHA-256 and size, the frontmatter checks, the methods and the cache fields of 2026-07-28. It attaches
// to a high-level McpServer, but each connection here is a low-level Server whose resources/*
// handlers (resources.ts) also serve tmux://, so the extension is handed a host that lends it the
// Server for its own methods and keeps the resource template it registers; resources.ts serves
// that template beside its own.
import {
  isInputRequiredResult,
  type McpRequestContext,
  type McpServer,
  type ReadResourceResult,
  type ReadResourceTemplateCallback,
  type Resource,
  type ResourceMetadata,
  type ResourceTemplate,
  type Server,
  skillEntry,
  SkillsExtension,
  type SkillSource,
  type Variables,
} from "../deps.ts";
import { SKILL_MARKDOWN, SKILL_NAME } from "../cli/skill.ts";

/** What resources.ts serves for the skills beside tmux://: a listing, a template, reads. */
export type SkillResourceHandlers = {
  /** The skills' SKILL.md files, for resources/list. */
  list: (ctx: McpRequestContext) => Promise<Resource[]>;
  /** The skill:// template, for resources/templates/list. */
  template: { name: string; uriTemplate: string } & ResourceMetadata;
  /** The file at `uri`, or null when `uri` is not a skill's: then it is not ours to answer. */
  read: (uri: string, ctx: McpRequestContext) => Promise<ReadResourceResult> | null;
};

/**
 * The extension, built once per server from SKILL.md as imported. The SDK's `skillEntry` makes
 * the entry (SHA-256, size, frontmatter) and refuses a SKILL.md that breaks the extension's rules
 * (tests start the server, so that fails there). A source of our own rather than the SDK's folder
 * catalog: the catalog also serves resources/directory/read, whose conformance checks need a
 * subdirectory in the skill, and one file has none to list.
 */
export async function loadSkills(): Promise<SkillsExtension> {
  const entry = await skillEntry(SKILL_NAME, { "SKILL.md": SKILL_MARKDOWN });
  const manifest: Resource = {
    uri: entry.uri,
    name: String(entry.frontmatter.name),
    description: String(entry.frontmatter.description),
    mimeType: "text/markdown",
  };
  const source: SkillSource = {
    list: () => Promise.resolve({ skills: [entry] }),
    get: (uri) => Promise.resolve(uri === entry.uri ? entry : undefined),
    read: (uri) =>
      Promise.resolve(
        uri === entry.uri ? { text: SKILL_MARKDOWN, mimeType: manifest.mimeType } : undefined,
      ),
    listResources: () => Promise.resolve([manifest]),
  };
  return new SkillsExtension({ source, strict: true });
}

type Registered = {
  name: string;
  template: ResourceTemplate;
  metadata: ResourceMetadata;
  read: ReadResourceTemplateCallback;
};

/**
 * Attaches the extension to one connection's Server, before it connects: skills/list and
 * skills/get go on the Server, the capability is declared, and the skill:// template comes back
 * for resources.ts. `SkillsExtension.attach` (SDK 2.4.0) uses exactly three
 * members of the McpServer it is given: `isConnected`, `server` and `registerResource` with a
 * template; the host below is those three. tests/skills_test.ts reads the skill through a real
 * client on both eras, so a change of that contract fails there.
 */
export function attachSkills(skills: SkillsExtension, instance: Server): SkillResourceHandlers {
  const taken: { resource?: Registered } = {};
  const host = {
    server: instance,
    isConnected: () => instance.transport !== undefined,
    registerResource: (
      name: string,
      template: ResourceTemplate,
      metadata: ResourceMetadata,
      read: ReadResourceTemplateCallback,
    ) => {
      taken.resource = { name, template, metadata, read };
    },
  };
  skills.attach(host as unknown as McpServer);
  if (!taken.resource) throw new Error("the Skills extension registered no resource template");
  const { name, template, metadata, read } = taken.resource;
  return {
    list: async (ctx) => {
      const listed = await template.listCallback?.(ctx);
      return (listed?.resources ?? []).map((resource) => ({ ...metadata, ...resource }));
    },
    template: { name, uriTemplate: template.uriTemplate.toString(), ...metadata },
    read: (uri, ctx) => {
      const variables = template.uriTemplate.match(uri);
      return variables ? readFile(read, uri, variables, ctx) : null;
    },
  };
}

/** One skill file through the extension's callback; a skill file never asks for input. */
async function readFile(
  read: ReadResourceTemplateCallback,
  uri: string,
  variables: Variables,
  ctx: McpRequestContext,
): Promise<ReadResourceResult> {
  const result = await read(new URL(uri), variables, ctx);
  if (isInputRequiredResult(result)) throw new Error("a skill file's read asked for input");
  return result;
}
