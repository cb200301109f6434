// The happy path of tmux_run end to end: enrollment by `source`, a run with native completion,
// separate outputs, the receipt, and what the script inherits from the shell.
import assert from "node:assert/strict";
import { sha256Hex } from "../lib/ids.ts";
import { typeInto, waitForPrompt, withLab, withServer } from "./harness.ts";

const ENABLE = ["--enable-tool", "tmux_run", "--enroll-pane"];

Deno.test("a run returns exit status, separate outputs and a receipt with the script's digest", async () => {
  await withLab(async (lab) => {
    await withServer(lab, [...ENABLE, `${"%0"}=SETUP`], async (s) => {
      await s.enroll();
      const script = "echo out; echo err >&2; exit 3";
      const result = await s.run(script);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.deepEqual(result.data.completion, { state: "exited", exit_status: 3, signal: null });
      assert.deepEqual(result.data.stdout, {
        encoding: "utf-8",
        data: "out\n",
        bytes: 4,
        truncated: false,
      });
      assert.equal(result.data.stderr.data, "err\n");
      assert.equal(
        result.data.authorization.script_digest,
        await sha256Hex(new TextEncoder().encode(script)),
      );
      assert.equal(result.data.authorization.pane_id, lab.pane);
    });
  });
});
