// Both protocol eras from one server process started as clients start it (bare environment,
// real stdio): the SDK v2 client in its `legacy` mode (the 2025 initialize handshake), `auto`
// (probes server/discover and takes 2026-07-28) and pinned to 2026-07-28, and the 2025-era
// client line (@modelcontextprotocol/sdk 1.32.2) that most clients still ship. Each lists the
// tools and calls one, so the answer went through the era's own result encoding.
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import { V1Client, V1StdioClientTransport } from "./test_deps.ts";
import { withStdioServer } from "./stdio_server.ts";
import { clientEnvironment } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const NO_TMUX = ["--socket-name", `absent-${randomHex(6)}`];

const MODES = [
  { mode: "legacy" as const, era: "legacy", version: "2025-11-25" },
  { mode: "auto" as const, era: "modern", version: "2026-07-28" },
  { mode: { pin: "2026-07-28" }, era: "modern", version: "2026-07-28" },
];

/**
 * A tmux_run refusal as a client gets it: the text content says it once, readable (not a JSON
 * copy of structuredContent, which a client showing text then escapes inside its own), the
 * structuredContent is the contract's, and `_meta` carries the size Claude Code keeps inline.
 */
function assertRefusalServed(result: Record<string, unknown>, era: string) {
  const text = (result.content as { type: string; text: string }[])[0].text;
  const payload = result.structuredContent as { ok: boolean; error: { code: string } };
  assert.equal(result.isError, true, era);
  assert.equal(payload.ok, false, era);
  assert.ok(
    text.startsWith(`error ${payload.error.code} (delivery: not_sent): `),
    `${era}: ${text}`,
  );
  assert.ok(!text.includes('"ok"'), `${era}: the text is a JSON copy`);
  assert.equal(
    (result._meta as Record<string, unknown> | undefined)?.["anthropic/maxResultSizeChars"],
    500_000,
    era,
  );
}

const RUN_ARGS = {
  target: { kind: "pane", id: "%0", generation: "not-this-server" },
  script: "true",
};

for (const { mode, era, version } of MODES) {
  Deno.test(`the SDK v2 client in ${JSON.stringify(mode)} mode is served ${version}`, () =>
    withStdioServer({
      args: [...NO_TMUX, "--enable-tool", "tmux_run"],
      negotiation: mode,
    }, async ({ client, call }) => {
      assert.equal(client.getProtocolEra(), era);
      assert.equal(client.getNegotiatedProtocolVersion(), version);
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "list_sessions"));
      const capabilities = await call("tmux_capabilities");
      assert.equal(capabilities.ok, true);
      assert.equal(capabilities.data.tmux.running, false);
      const refused = await call("capture_pane", { pane_id: "3" });
      assert.equal(refused.error.code, "invalid_input");
      assert.match(refused.error.message, /`pane_id` must look like %N/);
      assertRefusalServed(
        await client.callTool({ name: "tmux_run", arguments: RUN_ARGS }),
        version,
      );
    }));
}

Deno.test("the 2025-era SDK client (1.32.2) lists and calls tools", async () => {
  const transport = new V1StdioClientTransport({
    command: Deno.execPath(),
    args: ["run", "--allow-all", "--quiet", MAIN, ...NO_TMUX, "--enable-tool", "tmux_run"],
    env: clientEnvironment(),
    stderr: "ignore",
  });
  const client = new V1Client({ name: "v1", version: "1" });
  await client.connect(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "tmux-mcp");
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool: { name: string }) => tool.name === "tmux_capabilities"));
    const result = await client.callTool({ name: "tmux_capabilities", arguments: {} });
    assert.equal(result.isError, false);
    assert.ok(JSON.stringify(result.structuredContent).includes('"generation"'));
    assertRefusalServed(
      await client.callTool({ name: "tmux_run", arguments: RUN_ARGS }),
      "the 2025-era SDK client",
    );
  } finally {
    await client.close();
  }
});
