// An in-process server for the general tools' tests, configured the way a person would (the
// LIBTMUX_* environment as well as flags) and placed "inside tmux" by setting the caller's
// $TMUX/$TMUX_PANE on its context, without touching this test process's own environment.
// Every result is checked against the tool's advertised output schema.
import assert from "node:assert/strict";
import { parseCommandLine } from "../lib/config.ts";
import { CATALOG } from "../lib/catalog.ts";
import { isValid, validationErrors } from "../lib/schemas.ts";
import { type RunningServer, startServer } from "../lib/server.ts";
import type { ServerContext } from "../lib/server_context.ts";
import { Client, InMemoryTransport } from "./test_deps.ts";
import type { Lab, Payload } from "./harness.ts";

export type GeneralSession = {
  server: RunningServer;
  client: Client;
  call: (
    name: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal; onprogress?: (progress: unknown) => void },
  ) => Promise<Payload>;
};

export type SessionOptions = {
  env?: Record<string, string>;
  flags?: string[];
  caller?: ServerContext["caller"];
};

export async function withGeneral(
  lab: Lab,
  options: SessionOptions,
  fn: (session: GeneralSession) => Promise<void>,
): Promise<void> {
  const parsed = parseCommandLine(
    ["--socket-name", lab.socketName, ...(options.flags ?? [])],
    options.env ?? {},
  );
  assert.ok("config" in parsed);
  const server = await startServer(parsed.config);
  server.context.caller = options.caller ?? {};
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1" });
  await server.mcp.connect(serverTransport);
  await client.connect(clientTransport);
  const byName = new Map(CATALOG.map((tool) => [tool.name, tool]));
  const call: GeneralSession["call"] = async (name, args = {}, callOptions = {}) => {
    const result = await client.callTool({ name, arguments: args }, undefined, {
      signal: callOptions.signal,
      onprogress: callOptions.onprogress,
      timeout: 130_000,
    });
    const payload = JSON.parse((result.content as { text: string }[])[0].text);
    assert.deepEqual(result.structuredContent, payload);
    assert.equal(result.isError, !payload.ok);
    const tool = byName.get(name);
    if (tool) {
      assert.ok(
        isValid(tool.outputSchema, payload),
        `${name} result does not match its output schema: ${
          validationErrors(tool.outputSchema, payload)
        }\n${JSON.stringify(payload)}`,
      );
    }
    return payload;
  };
  try {
    await fn({ server, client, call });
  } finally {
    await client.close();
    await server.close();
  }
}

/** The $TMUX value tmux would give a process in `pane` of the lab's server. */
export async function tmuxEnvironmentFor(lab: Lab, pane: string) {
  const socket = await lab.tmuxCmd("display-message", "-p", "#{socket_path},#{pid},0");
  return { tmux: socket, pane };
}
