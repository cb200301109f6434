// The advertised tmux_run schemas are the contract's. schemas/tmux_run.*.json are the repo's
// copies of ../shared/spec; the test pins them by a SHA-256 recorded here, so drift is caught
// without reading anything outside the repository, and checks that tools/list advertises
// exactly those files, with the annotations the contract names. tmux_run's handler is typed by
// RUN_INPUT, the input schema written with the builders; it must stay the file's schema.
import assert from "node:assert/strict";
import { withLab, withServer } from "./harness.ts";
import { sha256Hex } from "../lib/util/ids.ts";
import { isValid } from "../lib/mcp/schemas.ts";
import { RUN_INPUT, tmuxRunTool } from "../lib/tools/tmux_run.ts";

const SCHEMAS = new URL("../schemas/", import.meta.url);

/**
 * SHA-256 of each contract schema's canonical JSON (keys sorted at every level, no whitespace),
 * computed from the spec's own files with
 *   jq -cS . ../shared/spec/tmux_run.input.schema.json | tr -d '\n' | sha256sum
 * (jq's sorted compact output is the same text as `canonicalJson` below). A change to the
 * contract is made in the spec first; then update the copy and this hash together.
 */
const CONTRACT_SHA256 = {
  "tmux_run.input.schema.json": "a77b7c97e25c92ffeb953a8c2b8fe8dbb110591404f9a88194cf5860ae3da6c9",
  "tmux_run.output.schema.json": "bfe4de4ea4d9a6a2b7a70c2f56fd00f5c98124c372b12ddb316d5c852cf62e27",
} as const;

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

async function schemaFile(name: keyof typeof CONTRACT_SHA256): Promise<unknown> {
  return JSON.parse(await Deno.readTextFile(new URL(name, SCHEMAS)));
}

Deno.test("canonical JSON sorts keys at every level and drops whitespace", () => {
  assert.equal(
    canonicalJson({ b: [1, { d: null, c: "x\n" }], a: true }),
    '{"a":true,"b":[1,{"c":"x\\n","d":null}]}',
  );
});

Deno.test("schemas/ holds the contract's tmux_run schemas unchanged", async () => {
  for (const [name, expected] of Object.entries(CONTRACT_SHA256)) {
    const canonical = canonicalJson(await schemaFile(name as keyof typeof CONTRACT_SHA256));
    assert.equal(
      await sha256Hex(new TextEncoder().encode(canonical)),
      expected,
      `schemas/${name} is not the contract's schema`,
    );
  }
});

Deno.test("tmux_run's typed input schema is the contract's, which is what it advertises", async () => {
  const contract = await schemaFile("tmux_run.input.schema.json");
  assert.deepEqual(RUN_INPUT, contract, "RUN_INPUT (lib/tools/tmux_run.ts) drifted from the file");
  assert.deepEqual(Object.getOwnPropertySymbols(RUN_INPUT), []);
  assert.deepEqual(tmuxRunTool.inputSchema, contract);
  assert.notEqual(tmuxRunTool.inputSchema, RUN_INPUT, "tmux_run advertises the file itself");
});

Deno.test("the typed input accepts a run and refuses what the contract refuses", () => {
  const target = { kind: "pane", id: "%3", generation: "g" };
  assert.ok(isValid(RUN_INPUT, { target, script: "true", stdout_limit: 0 }));
  assert.equal(isValid(RUN_INPUT, { target, script: "a\u0000b" }), false);
  assert.equal(isValid(RUN_INPUT, { target: { ...target, kind: "window" }, script: "" }), false);
  assert.equal(isValid(RUN_INPUT, { target, script: "", stdout_limit: 262145 }), false);
});

Deno.test("tools/list advertises tmux_run with exactly those files and the annotations", () =>
  withLab((lab) =>
    withServer(lab, ["--enable-tool", "tmux_run"], async (s) => {
      const { tools } = await s.client.listTools();
      const tool = tools.find((t: { name: string }) => t.name === "tmux_run");
      assert.ok(tool);
      assert.deepEqual(tool.inputSchema, await schemaFile("tmux_run.input.schema.json"));
      assert.deepEqual(tool.outputSchema, await schemaFile("tmux_run.output.schema.json"));
      assert.deepEqual(tool.annotations, {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      });
    })
  ));
