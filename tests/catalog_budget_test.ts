// What tools/list costs a client on every turn, held to a budget: the default toolsets with
// tmux_run, as JSON, at most BUDGET_BYTES. The general tools advertise no `$schema` and compact
// output schemas, socket_name is described in full once (the server's instructions), tmux_run's
// contract schemas go out as they are, and the two tools an agent needs first stay loaded.
// The target is 40 KB; README (Toolsets and tools) says what stands between.
import assert from "node:assert/strict";
import { withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { schemas } from "../lib/run/contract.ts";

/** 62.6 KB measured at this commit (80.8 KB before), with a little room. */
const BUDGET_BYTES = 64 * 1024;

Deno.test("tools/list with the default toolsets and tmux_run stays within its budget", () =>
  withLab((lab) =>
    withGeneral(lab, { flags: ["--enable-tool", "tmux_run"] }, async (s) => {
      const { tools } = await s.client.listTools();
      const bytes = new TextEncoder().encode(JSON.stringify(tools)).length;
      assert.ok(bytes <= BUDGET_BYTES, `tools/list is ${bytes} bytes, over ${BUDGET_BYTES}`);
      const run = tools.find((tool) => tool.name === "tmux_run");
      assert.deepEqual(run?.inputSchema, schemas.tmuxRunInput, "tmux_run's contract, as is");
      assert.deepEqual(run?.outputSchema, schemas.tmuxRunOutput, "tmux_run's contract, as is");
      const others = tools.filter((tool) => tool.name !== "tmux_run");
      assert.ok(!JSON.stringify(others).includes("$schema"), "a general tool carries $schema");
      const socketTexts = new Set(others.flatMap((tool) => {
        const property = tool.inputSchema.properties?.socket_name;
        return property && typeof property === "object" && "description" in property
          ? [String(property.description)]
          : [];
      }));
      assert.equal(socketTexts.size, 1, "socket_name is described one way");
      assert.ok([...socketTexts][0].length <= 80, "socket_name's text is the short one");
      const loaded = tools.filter((tool) => tool._meta?.["anthropic/alwaysLoad"] === true)
        .map((tool) => tool.name).sort();
      assert.deepEqual(loaded, ["tmux_capabilities", "tmux_run"]);
    })
  ));
