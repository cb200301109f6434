// An in-process server for the general tools' tests, configured the way a person would (the
// LIBTMUX_* environment as well as flags) and placed "inside tmux" by setting the caller's
// $TMUX/$TMUX_PANE on its context, without touching this test process's own environment.
// Every result is checked against the tool's output schema in the catalog, advertised or not,
// and, since the session lists the tools first, by the SDK client against the compact schema
// tools/list advertises (lib/mcp/advertised.ts), as a client would.
// A thin view on harness.ts, which builds the server and client and checks each result.
import { CATALOG } from "../lib/server/catalog.ts";
import type { RunningServer } from "../lib/server/server.ts";
import type { ServerContext } from "../lib/tools/context.ts";
import type { Client } from "./test_deps.ts";
import { callTool, type Lab, type Payload, withConnectedServer } from "./harness.ts";

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

const OUTPUT_SCHEMAS = new Map(CATALOG.map((tool) => [tool.name, tool.outputSchema]));

export async function withGeneral(
  lab: Lab,
  options: SessionOptions,
  fn: (session: GeneralSession) => Promise<void>,
): Promise<void> {
  const setup = { flags: options.flags, env: options.env, caller: options.caller ?? {} };
  await withConnectedServer(lab, setup, async ({ server, client }) => {
    await client.listTools();
    const call: GeneralSession["call"] = (name, args = {}, callOptions = {}) =>
      callTool(client, name, args, {
        signal: callOptions.signal,
        onprogress: callOptions.onprogress,
        timeout: 130_000,
      }, OUTPUT_SCHEMAS.get(name));
    await fn({ server, client, call });
  });
}

/** The $TMUX value tmux would give a process in `pane` of the lab's server. */
export async function tmuxEnvironmentFor(lab: Lab, pane: string) {
  const socket = await lab.tmuxCmd("display-message", "-p", "#{socket_path},#{pid},0");
  return { tmux: socket, pane };
}
