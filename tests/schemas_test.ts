// The advertised tmux_run schemas are the contract's, to the byte (deep-equal JSON), and the
// annotations are the ones the contract names.
import assert from "node:assert/strict";
import { withLab, withServer } from "./harness.ts";
import { schemas } from "../lib/schemas.ts";

const SPEC = new URL("../../shared/spec/", import.meta.url);

const specAvailable = await Deno.stat(SPEC).then(() => true, () => false);

Deno.test({
  name: "schemas/ holds the contract's tmux_run schemas unchanged",
  ignore: !specAvailable,
  fn: async () => {
    for (
      const [file, ours] of [
        ["tmux_run.input.schema.json", schemas.tmuxRunInput],
        ["tmux_run.output.schema.json", schemas.tmuxRunOutput],
      ] as const
    ) {
      assert.deepEqual(ours, JSON.parse(await Deno.readTextFile(new URL(file, SPEC))));
    }
  },
});

Deno.test("tools/list advertises tmux_run with the exact schemas and annotations", () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      const { tools } = await s.client.listTools();
      const tool = tools.find((t: { name: string }) => t.name === "tmux_run");
      assert.ok(tool);
      assert.deepEqual(tool.inputSchema, schemas.tmuxRunInput);
      assert.deepEqual(tool.outputSchema, schemas.tmuxRunOutput);
      assert.deepEqual(tool.annotations, {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      });
    })
  ));
