// Interop with the Python MCP SDK's client (mcp 2.3.0), which starts the server as its own
// process in a bare environment. Its python comes from .ci/python-mcp.sh (a cached virtual
// environment; .ci/run makes it and passes TMUX_MCP_PYTHON): where the package cannot be had the
// test is ignored, and says so.
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import { clientEnvironment } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const SCRIPT = new URL("./python_client.py", import.meta.url).pathname;
const python = Deno.env.get("TMUX_MCP_PYTHON");

if (!python) {
  console.error("python_client_test: TMUX_MCP_PYTHON is unset (.ci/python-mcp.sh prints one)");
}

Deno.test({
  name: "the Python SDK's client initializes, lists the tools and calls one",
  ignore: !python,
  fn: async () => {
    const output = await new Deno.Command(python ?? "python3", {
      args: [
        SCRIPT,
        Deno.execPath(),
        "run",
        "-A",
        "--quiet",
        MAIN,
        "--socket-name",
        `absent-${randomHex(6)}`,
      ],
      env: clientEnvironment(),
      clearEnv: true,
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    const answer = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(answer.protocol, "2025-11-25");
    assert.ok(answer.tools.includes("tmux_capabilities"));
    assert.equal(answer.is_error, false);
    assert.equal(answer.structured.ok, true);
    assert.equal(answer.structured.data.tmux.running, false);
  },
});
