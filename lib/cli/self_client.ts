// This program as an MCP client of itself, for the demo and the smoke check: the server runs as
// a separate process over real stdio, exactly as an agent's client would start it, whether this
// program is a checkout, a URL, a bundle or a compiled binary.
import { Client, StdioClientTransport } from "../dev_deps.ts";
import { VERSION } from "../util/version.ts";

export type SelfClient = {
  pid: number | null;
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolAnswer>;
  close: () => Promise<void>;
};

// deno-lint-ignore no-explicit-any
export type ToolAnswer = { ok: boolean; data?: any; error?: any };

/** Every tool of this server answers `{ok: true, data}` or `{ok: false, error}` (tool_result.ts). */
function isToolAnswer(value: unknown): value is ToolAnswer {
  return typeof value === "object" && value !== null && "ok" in value &&
    typeof value.ok === "boolean";
}

/** The command line that starts this same program. */
export function selfCommand(mainModule = Deno.mainModule): string[] {
  if (mainModule.includes("/deno-compile-")) return [Deno.execPath()];
  return [Deno.execPath(), "run", "--allow-all", "--no-config", mainModule];
}

/**
 * Starts this program as a server with `args`. `callTimeoutSeconds` bounds each call (the SDK's
 * default is 60 s, shorter than a long --run-timeout).
 */
export async function startSelfServer(
  args: string[],
  callTimeoutSeconds = 60,
): Promise<SelfClient> {
  const [command, ...prefix] = selfCommand();
  const transport = new StdioClientTransport({
    command,
    args: [...prefix, ...args],
    stderr: "ignore",
    env: Deno.env.toObject(),
  });
  const client = new Client({ name: "tmux-mcp-self", version: VERSION });
  await client.connect(transport);
  return {
    pid: transport.pid,
    call: async (name, args = {}) => {
      // The payload is structuredContent; the text content is worded for reading.
      const { structuredContent: answer } = await client.callTool({ name, arguments: args }, {
        timeout: callTimeoutSeconds * 1000,
      });
      if (!isToolAnswer(answer)) {
        throw new Error(`${name} did not answer with {ok, ...} as structuredContent`);
      }
      return answer;
    },
    close: () => client.close(),
  };
}
