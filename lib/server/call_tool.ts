// What every tool call goes through, in order, on either era and as a task alike: policy,
// closing, the arguments a client injects into every tool removed, the arguments parsed once by
// the tool's own `parse` (lib/tools/_define.ts), the call, the person's journal for a tool that
// acts, and the result in the tool's words.
import type { CallToolResult, McpRequestContext } from "../deps.ts";
import { isJsonObject } from "../util/json_object.ts";
import type { ParsedCall, ServerContext, ToolDefinition, ToolExtra } from "../tools/context.ts";
import type { MissedCalls } from "./missed_calls.ts";
import { socketPath } from "../tmux/tmux.ts";
import { toCallToolResult } from "../mcp/tool_result.ts";
import { POLICY_DENIED, refusal, type ToolPayload } from "../mcp/tool_payload.ts";
import { callEntry } from "../journal/entries.ts";

/**
 * Arguments a client adds to every tool's schema on its own and then sends, which no tool of ours
 * takes: Gemini CLI offers the model `wait_for_previous` (a boolean: wait for the earlier calls
 * before this one) on every MCP tool and forwards it unchanged (issue 27). Removed by name before
 * validation, so those calls are not refused; every other unknown key still is, and what
 * tools/list advertises, tmux_run's contract included, stays as it is.
 */
const CLIENT_INJECTED_ARGUMENTS: readonly string[] = ["wait_for_previous"];

/** `args` without the client-injected keys the tool's own schema does not declare. */
function withoutClientInjected(tool: ToolDefinition, args: unknown): unknown {
  if (!isJsonObject(args)) return args;
  const declared = isJsonObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
  const injected = CLIENT_INJECTED_ARGUMENTS.filter((key) =>
    Object.hasOwn(args, key) &&
    !Object.hasOwn(declared, key)
  );
  if (injected.length === 0) return args;
  const kept = { ...args };
  for (const key of injected) delete kept[key];
  return kept;
}

/**
 * What every tool call goes through, in order: policy, closing, client-injected arguments
 * removed, input validation, the tool.
 */
export async function callTool(
  context: ServerContext,
  tool: ToolDefinition,
  given: unknown,
  extra: ToolExtra,
  missed?: MissedCalls,
): Promise<CallToolResult> {
  const began = performance.now();
  const answer = (payload: ToolPayload) => {
    // A client that cancelled takes no answer: what the call came to waits for its next one.
    if (extra.signal.aborted && missed) {
      missed.record(tool.name, payload, (performance.now() - began) / 1000);
      return resultOf(tool, payload);
    }
    return resultOf(tool, payload, missed?.take() ?? undefined);
  };
  if (!context.enabledTools.has(tool.name)) return answer(POLICY_DENIED);
  if (context.closing.aborted) return answer(refusal("closed", "the server is shutting down"));
  const args = withoutClientInjected(tool, given);
  const parsed = tool.parse(args);
  if (!parsed.ok) return answer(parsed.payload);
  if (tool.annotations.readOnlyHint || tool.journalsItself) {
    return answer(await parsed.call(context, extra));
  }
  return answer(await journaled(context, tool, parsed.call, args, extra));
}

/**
 * A call of a tool that acts, with its line queued in the person's journal once its outcome is
 * known (lib/journal/entries.ts says what is kept); the answer never waits for the line.
 */
async function journaled(
  context: ServerContext,
  tool: ToolDefinition,
  call: Extract<ParsedCall, { ok: true }>["call"],
  given: unknown,
  extra: ToolExtra,
): Promise<ToolPayload> {
  const started = new Date();
  const began = performance.now();
  const args = isJsonObject(given) ? given : {};
  let payload: ToolPayload | null = null;
  try {
    payload = await call(context, extra);
    return payload;
  } finally {
    const named = typeof args.socket_name === "string" ? args.socket_name : null;
    const shell = typeof args.pane_id === "string" && named === null
      ? context.enrollments?.shells.get(args.pane_id)
      : undefined;
    context.journal.record(callEntry({
      server: { pid: Deno.pid, generation: context.generation },
      tool: tool.name,
      socket: socketPath(named === null ? context.tmux.socket : { kind: "name", name: named }),
      started,
      durationMs: performance.now() - began,
      args,
      enrollmentGeneration: shell?.enrollmentGeneration ?? null,
      payload,
    }));
  }
}

/** The result a tool's payload is sent as: in the tool's words, with its size for the client. */
function resultOf(
  tool: ToolDefinition,
  payload: ToolPayload,
  lead?: string,
): CallToolResult {
  const result = toCallToolResult(payload, tool.wording?.(payload), lead);
  if (tool.maxResultChars !== undefined) {
    result._meta = { "anthropic/maxResultSizeChars": tool.maxResultChars };
  }
  return result;
}

/** The cancellation signal, and progress when the request asked for it (`_meta.progressToken`). */
export function toolExtra(ctx: McpRequestContext): ToolExtra {
  const { signal, notify, _meta } = ctx.mcpReq;
  const progressToken = _meta?.progressToken;
  if (progressToken === undefined) return { signal };
  return {
    signal,
    progress: (progress, message) => {
      if (signal.aborted) return;
      notify({ method: "notifications/progress", params: { progressToken, progress, message } })
        .catch(() => {});
    },
  };
}
