// The server as MCP clients start it: its own process over stdio, with a bare environment (PATH
// and HOME, Deno's certificate trust, plus what the test adds), driven by the SDK client, which
// checks every structured result against the tool's advertised output schema itself. The SDK's
// transport also passes on LOGNAME, SHELL, TERM and USER when this process has them, as it does
// for every client built on it; this process has no locale (tests/harness.ts scrubs it).
import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "./test_deps.ts";
import { clientEnvironment, expectedText, type Payload } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

export type StdioSession = {
  client: Client;
  call: (name: string, args?: Record<string, unknown>) => Promise<Payload>;
  stderr: () => string;
};

export async function withStdioServer(
  options: {
    env?: Record<string, string>;
    args?: string[];
    /** How the SDK client picks the protocol era; unset: its default, `legacy`. */
    negotiation?: "legacy" | "auto" | { pin: string };
  },
  fn: (session: StdioSession) => Promise<void>,
): Promise<void> {
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, ...(options.args ?? [])],
    env: clientEnvironment(options.env),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "stdio-test", version: "1" }, {
    versionNegotiation: { mode: options.negotiation ?? "legacy" },
  });
  await client.connect(transport);
  // Listing the tools makes the client check each result against its tool's output schema.
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    const payload: Payload = result.structuredContent;
    assert.equal((result.content as { text: string }[])[0].text, expectedText(name, payload), name);
    return payload;
  };
  try {
    await fn({ client, call, stderr: () => stderr });
  } finally {
    await client.close();
  }
}
