// The test lab runs the tmux that configuration names, not one from a fixed PATH: the first
// `tmux` on PATH, or LIBTMUX_TMUX_BIN when set, for every client and for the pane's shell.
// Here a wrapper that records each call stands in for a different tmux.
import assert from "node:assert/strict";
import { runDeno } from "./harness.ts";

const LAB = new URL("../lib/cli/private_lab.ts", import.meta.url).href;

const PROBE = `
import { openLab } from "${LAB}";
const lab = await openLab({ prefix: "tmux-mcp-test" });
const path = await lab.tmuxCmd("show-environment", "-g", "PATH");
await lab.close();
console.log(JSON.stringify({ bin: lab.tmux.bin, path }));
`;

Deno.test("the lab takes its tmux from PATH, or from LIBTMUX_TMUX_BIN when set", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-wrapper-" });
  try {
    const real = new TextDecoder().decode(
      (await new Deno.Command("/bin/sh", { args: ["-c", "command -v tmux"] }).output()).stdout,
    ).trim();
    for (const name of ["on-path", "configured"]) {
      await Deno.mkdir(`${dir}/${name}`);
      await Deno.writeTextFile(
        `${dir}/${name}/tmux`,
        `#!/bin/sh\necho "$*" >> '${dir}/${name}.log'\nexec '${real}' "$@"\n`,
        { mode: 0o755 },
      );
    }
    const onPath = await runDeno(["eval", PROBE], {
      PATH: `${dir}/on-path:${Deno.env.get("PATH")}`,
    });
    assert.equal(onPath.code, 0, onPath.stderr);
    const seen = JSON.parse(onPath.stdout);
    assert.equal(seen.bin, `${dir}/on-path/tmux`);
    assert.ok(
      seen.path.startsWith(`PATH=${dir}/on-path:`),
      `the lab's PATH leads with it: ${seen.path}`,
    );
    assert.match(await Deno.readTextFile(`${dir}/on-path.log`), /new-session/);

    const configured = await runDeno(["eval", PROBE], {
      PATH: `${dir}/on-path:${Deno.env.get("PATH")}`,
      LIBTMUX_TMUX_BIN: `${dir}/configured/tmux`,
    });
    assert.equal(configured.code, 0, configured.stderr);
    assert.equal(JSON.parse(configured.stdout).bin, `${dir}/configured/tmux`);
    assert.match(await Deno.readTextFile(`${dir}/configured.log`), /new-session/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
