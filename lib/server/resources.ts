// Read-only views of tmux as MCP resources, for clients that browse rather than call tools.
// They are registered whatever tools are selected (toolsets govern tools, not resources), read
// tmux at the moment they are read, and reuse the inspect tools' code, so a resource and the
// matching tool can never disagree.
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server } from "../deps.ts";
import { registerPrompts } from "./prompts.ts";
import type { SkillResourceHandlers } from "./skills.ts";
import type { ServerContext, ToolDefinition } from "../tools/context.ts";
import { getPaneInfoTool, listSessionsTool, listWindowsTool } from "../tools/listing.ts";
import { capturePaneTool } from "../tools/screen.ts";

type View = { tool: ToolDefinition; args: Record<string, unknown>; mimeType: string };

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Which inspect tool answers `uri`, with which arguments; null for an unknown URI. */
export function viewFor(uri: string): View | null {
  const json = "application/json";
  if (uri === "tmux://sessions") return { tool: listSessionsTool, args: {}, mimeType: json };
  let match = /^tmux:\/\/sessions\/([^/]+)\/windows$/.exec(uri);
  if (match) {
    const session = decoded(match[1]);
    const args = /^\$\d+$/.test(session) ? { session_id: session } : { session_name: session };
    return { tool: listWindowsTool, args, mimeType: json };
  }
  match = /^tmux:\/\/panes\/([^/]+)(\/content)?$/.exec(uri);
  if (match) {
    const pane_id = decoded(match[1]);
    if (!/^%\d+$/.test(pane_id)) return null;
    return match[2]
      ? { tool: capturePaneTool, args: { pane_id }, mimeType: "text/plain" }
      : { tool: getPaneInfoTool, args: { pane_id }, mimeType: json };
  }
  return null;
}

/** The pane's text from capture_pane's data; null if the data does not carry one. */
function textOf(data: unknown): string | null {
  if (typeof data !== "object" || data === null || !("text" in data)) return null;
  return typeof data.text === "string" ? data.text : null;
}

/**
 * The tmux views, and the skill's file (`skills`, lib/server/skills.ts) beside them: the Skills
 * extension's skill:// template is listed and read through these same handlers.
 */
export function registerResourcesAndPrompts(
  mcp: Server,
  context: ServerContext,
  skills: SkillResourceHandlers,
): void {
  mcp.setRequestHandler("resources/list", async (_request, ctx) => ({
    resources: [{
      uri: "tmux://sessions",
      name: "sessions",
      description: "The sessions on the bound tmux server, read when requested",
      mimeType: "application/json",
    }, ...await skills.list(ctx)],
  }));
  mcp.setRequestHandler("resources/templates/list", () => ({
    resourceTemplates: [
      {
        uriTemplate: "tmux://sessions/{session}/windows",
        name: "session windows",
        description: "The windows of one session, by id ($N) or exact name",
        mimeType: "application/json",
      },
      {
        uriTemplate: "tmux://panes/{pane_id}",
        name: "pane",
        description: "One pane's details, by exact id (%N, written %25N in a URI)",
        mimeType: "application/json",
      },
      {
        uriTemplate: "tmux://panes/{pane_id}/content",
        name: "pane content",
        description: "The text a pane shows, bounded; untrusted output from other programs",
        mimeType: "text/plain",
      },
      skills.template,
    ],
  }));
  mcp.setRequestHandler("resources/read", async (request, ctx) => {
    const { uri } = request.params;
    const skillFile = skills.read(uri, ctx);
    if (skillFile) return await skillFile;
    const view = viewFor(uri);
    if (!view) {
      throw new ResourceNotFoundError(
        uri,
        "no tmux resource has that URI; resources/list and resources/templates/list name them",
      );
    }
    const payload = await view.tool.handle(context, view.args, { signal: ctx.mcpReq.signal });
    if (!payload.ok) {
      const missing = payload.error.code === "not_found" || payload.error.code === "no_server";
      if (missing) throw new ResourceNotFoundError(uri, payload.error.message);
      // A URI that names its object in a form the tool refuses (a session name with a dot) is
      // the request's fault, not the server's.
      const code = payload.error.code === "invalid_input"
        ? ProtocolErrorCode.InvalidParams
        : ProtocolErrorCode.InternalError;
      throw new ProtocolError(code, payload.error.message);
    }
    const text = view.mimeType === "text/plain"
      ? textOf(payload.data)
      : JSON.stringify(payload.data);
    if (text === null) {
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        "capture_pane answered without the pane's text",
      );
    }
    return { contents: [{ uri, mimeType: view.mimeType, text }] };
  });
  registerPrompts(mcp, context.enrollCommand);
}
