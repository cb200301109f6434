// This server's MCP factory behind the SDK's own HTTP entry, for the conformance suite's
// 2026-07-28 scenarios: the suite speaks HTTP only, and the 2026 revision is stateless, one
// exchange per request, which a stdio bridge that keeps sessions cannot carry. The tools,
// resources, prompts and validation are the same code the stdio server runs (startServer's
// factory); only the transport differs. Bound to 127.0.0.1.
// Usage: deno run -A .ci/conformance_http.ts PORT TMUX_SOCKET_NAME
import { createMcpHandler } from "npm:@modelcontextprotocol/server@2.4.0";
import { parseCommandLine } from "../lib/server/config.ts";
import { startServer } from "../lib/server/server.ts";

const [port, socketName] = Deno.args;
const parsed = parseCommandLine(["--socket-name", socketName], {});
if (!("config" in parsed)) throw new Error("usage: conformance_http.ts PORT TMUX_SOCKET_NAME");
const server = await startServer(parsed.config);
const handler = createMcpHandler(server.mcpServer, { legacy: "reject" });
Deno.serve(
  { hostname: "127.0.0.1", port: Number(port), onListen: () => {} },
  (request) => handler.fetch(request),
);
// conformance.sh ends the process group with SIGTERM: close the server as the stdio server does
// at shutdown, so its private directory and tmux connections do not outlive it.
Deno.addSignalListener("SIGTERM", async () => {
  await server.close();
  Deno.exit(0);
});
