// What a client that shows only the text content, and cuts it, gets of a tmux_run result: the
// outcome in the first lines and again in the last, the outputs line by line between, and the
// size Claude Code should keep inline in _meta; structuredContent stays the contract's payload.
import assert from "node:assert/strict";
import { assertValidRunResult, enrolled, type Payload } from "./harness.ts";

Deno.test(
  "a 60 KB run's text keeps its outcome at the head and the tail, its output in lines",
  enrolled(async (lab, s) => {
    const target = { kind: "pane", id: lab.pane, generation: s.generation };
    const script = 'i=0; while [ $i -lt 2000 ]; do echo "line $i of the output......."; ' +
      "i=$((i+1)); done; echo oops >&2; exit 4";
    const result = await s.client.callTool({ name: "tmux_run", arguments: { target, script } });
    const payload: Payload = result.structuredContent;
    assertValidRunResult(payload);
    const text = (result.content as { text: string }[])[0].text;
    assert.ok(text.length > 60_000, `${text.length}`);
    const lines = text.split("\n");
    const runId = payload.data.authorization.run_id;
    // What a head of 500 characters (Copilot's preview) or of a few lines keeps.
    const head = text.slice(0, 500);
    assert.match(head, /^exited 4\n/);
    assert.ok(head.includes(`run ${runId} in pane ${lab.pane}, script sha256 `));
    assert.ok(head.includes(payload.data.authorization.script_digest));
    assert.ok(head.includes(`stdout: ${payload.data.stdout.bytes} bytes utf-8; stderr: 5 bytes`));
    // What a tail keeps.
    assert.equal(lines.at(-1), `--- end: exited 4, run ${runId} ---`);
    assert.equal(lines.at(-2), "oops");
    assert.equal(lines.filter((line) => /^line \d+ of the output/.test(line)).length, 2000);
    assert.equal(result.isError, false);
    assert.equal(
      (result._meta as Record<string, unknown>)["anthropic/maxResultSizeChars"],
      500_000,
    );
  }),
);
