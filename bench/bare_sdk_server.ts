// The yardstick for what the MCP SDK itself costs: a bare SDK v2 server (serveStdio, the
// low-level Server) that serves a tools/list read from a file (this server's own, so both hold
// the same catalog) and answers every tools/call with one fixed refusal, the shape this server
// gives an invalid argument. Nothing of tmux, validation or the tools is loaded.
// Usage: deno run -A --v8-flags=… bench/bare_sdk_server.ts TOOLS_JSON_FILE
import { Server, serveStdio, type Tool } from "../lib/deps.ts";

const tools: Tool[] = JSON.parse(await Deno.readTextFile(Deno.args[0]));
const payload = {
  ok: false,
  error: { code: "invalid_input", message: "invalid arguments", delivery: "not_sent" },
};

serveStdio(() => {
  const server = new Server({ name: "bare", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler("tools/list", () => ({ tools }));
  server.setRequestHandler("tools/call", () => ({
    content: [{ type: "text", text: JSON.stringify(payload) }],
    structuredContent: payload,
    isError: true,
  }));
  return server;
});
