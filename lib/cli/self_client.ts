// This program as an MCP client of itself, for the demo and the smoke check: the server runs as
// a separate process over real stdio, exactly as an agent's client would start it, whether this
// program is a checkout, a URL, a bundle or a compiled binary.
import { Client, StdioClientTransport } from "../deps.ts";
import { VERSION } from "../version.ts";

export type SelfClient = {
  pid: number | null;
  call: (name: string, args?: Record<string, unknown>) => Promise<ToolAnswer>;
  close: () => Promise<void>;
};

// deno-lint-ignore no-explicit-any
export type ToolAnswer = { ok: boolean; data?: any; error?: any };

/** The command line that starts this same program. */
export function selfCommand(mainModule = Deno.mainModule): string[] {
  if (mainModule.includes("/deno-compile-")) return [Deno.execPath()];
  return [Deno.execPath(), "run", "--allow-all", "--no-config", mainModule];
}

export async function startSelfServer(args: string[]): Promise<SelfClient> {
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
      const result = await client.callTool({ name, arguments: args });
      return JSON.parse((result.content as { text: string }[])[0].text);
    },
    close: () => client.close(),
  };
}
