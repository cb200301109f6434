// An outside client, not our SDK: the MCP Inspector's CLI (version 2, which needs Node 22, so
// npx brings node@22 from the npm registry too) lists the tools and calls one, against the
// server started as its own process.
import assert from "node:assert/strict";
import { withLab } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const INSPECTOR = ["-y", "-p", "node@22", "-p", "@modelcontextprotocol/inspector@2.12.0", "--"];

async function inspect(socketName: string, method: string[]) {
  const output = await new Deno.Command("npx", {
    args: [
      ...INSPECTOR,
      "mcp-inspector",
      "--cli",
      Deno.execPath(),
      "run",
      "-A",
      MAIN,
      "--socket-name",
      socketName,
      "--enable-tool",
      "tmux_run",
      // The Inspector starts the server with an environment of its own, the real HOME's: its
      // journal would outlive the test.
      "--no-journal",
      ...method,
    ],
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr).slice(-2000));
  return JSON.parse(stdout);
}

Deno.test("the MCP Inspector CLI lists the tools and calls tmux_capabilities", () =>
  withLab(async (lab) => {
    const listed = await inspect(lab.socketName, ["--method", "tools/list"]);
    const names = listed.tools.map((tool: { name: string }) => tool.name);
    assert.ok(names.includes("tmux_run"));
    assert.ok(names.includes("tmux_capabilities"));
    const called = await inspect(lab.socketName, [
      "--method",
      "tools/call",
      "--tool-name",
      "tmux_capabilities",
    ]);
    assert.equal(called.isError, false);
    assert.equal(called.structuredContent.ok, true);
    assert.ok(called.structuredContent.data.enabled_tools.includes("tmux_run"));
    assert.equal(called.structuredContent.data.tmux.running, true);
  }));
