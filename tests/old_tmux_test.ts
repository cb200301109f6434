// tmux older than 3.3 (bullseye's 3.1c, built by .ci/tmux-versions.sh): the general tools still
// work, and tmux_run says cleanly that it cannot: the startup line offers no enroll line,
// tmux_capabilities reports it unsupported with the version found, a call is refused as not
// enrolled, and sourcing an invitation prints one line naming the version needed and leaves the
// shell as it was. Runs when TMUX_MCP_OLD_TMUX names such a tmux (.ci/run sets it); otherwise
// it is reported ignored.
import assert from "node:assert/strict";
import { openLab, waitFor } from "../lib/cli/private_lab.ts";
import { withStdioServer } from "./stdio_server.ts";
import { socketPath } from "../lib/tmux/tmux.ts";
import { runDeno } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

const OLD_TMUX = Deno.env.get("TMUX_MCP_OLD_TMUX");

Deno.test({
  name: "with tmux 3.1c the general tools work and tmux_run refuses cleanly",
  ignore: !OLD_TMUX,
  fn: async () => {
    const lab = await openLab({ prefix: "tmux-mcp-test", tmuxBin: OLD_TMUX });
    try {
      const setupFile = `${lab.dir}/enroll`;
      await withStdioServer({
        args: [
          "--tmux",
          lab.tmux.bin,
          "--socket-name",
          lab.socketName,
          "--enable-tool",
          "tmux_run",
          "--enroll-pane",
          `${lab.pane}=${setupFile}`,
        ],
      }, async ({ call, stderr }) => {
        const capabilities = await call("tmux_capabilities");
        // The startup line offers no enroll line: tmux_run cannot work on this tmux.
        assert.match(stderr(), /^tmux-mcp: bound to .*; tools: .*tmux_run/);
        assert.doesNotMatch(stderr(), /lend a pane|enroll/);
        assert.match(capabilities.data.tmux.version, /^tmux 3\.[0-2]/);
        assert.equal(capabilities.data.authored_run.availability, "unsupported");
        const panes = await call("list_panes", {});
        assert.deepEqual(panes.data.panes.map((p: { pane_id: string }) => p.pane_id), [lab.pane]);

        await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", `source ${setupFile}; echo "rc=$?"`);
        await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
        const screen = await waitFor("the refusal", async () => {
          const text = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
          return /^rc=\d+$/m.test(text) ? text : null;
        });
        const lines = screen.split("\n").filter((line) => line.startsWith("tmux-mcp:"));
        assert.deepEqual(lines, ["tmux-mcp: not enrolled: tmux 3.3 or newer is required"]);
        assert.match(screen, /^rc=1$/m, screen);
        await lab.tmuxCmd(
          "send-keys",
          "-t",
          lab.pane,
          "-l",
          'echo "vars=${(k)parameters[(I)_tmux_mcp*]}."',
        );
        await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
        await waitFor(
          "the shell's variables",
          async () => /^vars=\.$/m.test(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)),
        );

        const run = await call("tmux_run", {
          target: { kind: "pane", id: lab.pane, generation: capabilities.data.generation },
          script: "true",
        });
        assert.equal(run.ok, false);
        assert.equal(run.error.code, "unsupported");
        assert.equal(run.error.delivery, "not_sent");
      });
    } finally {
      await lab.close();
    }
    await assert.rejects(Deno.lstat(socketPath(lab.tmux.socket)), "the tmux socket is left behind");
  },
});

Deno.test({
  name: "demo and smoke check the tmux that LIBTMUX_TMUX_BIN or --tmux names: 3.1c, one line",
  ignore: !OLD_TMUX,
  fn: async () => {
    const needed = "tmux 3.3 or newer is required (found tmux 3.1c)";
    const smoke = await runDeno(["run", "-A", MAIN, "smoke"], { LIBTMUX_TMUX_BIN: OLD_TMUX! });
    assert.equal(smoke.code, 1, smoke.stderr);
    assert.deepEqual(JSON.parse(smoke.stdout), { ok: false, error: needed });
    assert.equal(smoke.stderr, "");
    const demo = await runDeno(["run", "-A", MAIN, "demo", "--tmux", OLD_TMUX!]);
    assert.equal(demo.code, 1, demo.stderr);
    assert.equal(demo.stderr, `tmux-mcp demo: ${needed}\n`);
  },
});
