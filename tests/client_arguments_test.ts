// Arguments a client injects into every tool it shows its model: Gemini CLI adds a boolean
// `wait_for_previous` to each MCP tool's schema and forwards it as the model set it. The server
// removes it by name before validation, on every tool, so those calls are not refused; tools/list
// never mentions it, and every other key a tool does not take is still refused by name.
import assert from "node:assert/strict";
import { enrolled, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

const EVERY_TOOL = {
  flags: ["--enable-tool", "tmux_run"],
  env: { LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" },
};

Deno.test("wait_for_previous is dropped on every tool, and another unknown key still refused", () =>
  withLab((lab) =>
    withGeneral(lab, EVERY_TOOL, async (s) => {
      const { tools } = await s.client.listTools();
      assert.ok(tools.length >= 29, `only ${tools.length} tools`);
      assert.doesNotMatch(JSON.stringify(tools), /wait_for_previous/);
      for (const tool of tools) {
        // An unknown key beside it: the call stops at validation whatever the tool does, and
        // what it names is the unknown key, never wait_for_previous.
        const refused = await s.call(tool.name, { wait_for_previous: true, not_a_field: 1 });
        assert.equal(refused.ok, false, tool.name);
        assert.equal(refused.error.code, "invalid_input", `${tool.name}: ${refused.error.message}`);
        assert.doesNotMatch(refused.error.message, /wait_for_previous/, tool.name);
      }
      const listed = await s.call("list_panes", { wait_for_previous: true });
      assert.equal(listed.ok, true, JSON.stringify(listed));
      assert.ok(listed.data.panes.some((pane: { pane_id: string }) => pane.pane_id === lab.pane));
      const stillStrict = await s.call("list_panes", { wait_for_previous: true, wait: true });
      assert.equal(stillStrict.ok, false);
      assert.match(stillStrict.error.message, /`wait` is not a parameter of this tool/);
    })
  ));

Deno.test(
  "tmux_run runs a script sent with wait_for_previous, its contract unchanged",
  enrolled(async (lab, s) => {
    const { tools } = await s.client.listTools();
    const run = tools.find((tool: { name: string }) => tool.name === "tmux_run");
    assert.equal(run?.inputSchema.additionalProperties, false);
    assert.ok(!("wait_for_previous" in (run?.inputSchema.properties ?? {})));
    const target = { kind: "pane", id: lab.pane, generation: s.generation };
    const result = await s.call("tmux_run", { target, script: "exit 3", wait_for_previous: false });
    assert.equal(result.ok, true, JSON.stringify(result));
    assert.deepEqual(result.data.completion, { state: "exited", exit_status: 3, signal: null });
    const other = await s.call("tmux_run", { target, script: "exit 3", wait_for_it: true });
    assert.equal(other.ok, false);
    assert.equal(other.error.code, "invalid_input");
    assert.match(other.error.message, /`wait_for_it` is not a parameter of this tool/);
  }),
);
