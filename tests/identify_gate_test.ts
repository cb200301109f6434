// tmux dies when a notification for control clients comes while one is starting (see
// lib/tmux/identify_gate.ts). This starts and closes control connections one after another
// while another task renames the session in a loop (each rename notifies every control client),
// all through this process's own paths: without the gate, tmux 3.3a and 3.5a crashed within a few
// hundred connections (a handful, mostly); with it the server must still answer at the end.
import assert from "node:assert/strict";
import { controlAlways, withLab } from "./harness.ts";
import { ControlServer } from "../lib/tmux/control_servers.ts";
import { runTmux } from "../lib/tmux/tmux.ts";

const CONNECTIONS = 400;

Deno.test("control connections that start while commands notify never crash the tmux server", () =>
  withLab(async (lab) => {
    let renaming = true;
    let renames = 0;
    const renamer = (async () => {
      while (renaming) {
        await runTmux(lab.tmux, ["rename-session", "-t", "$0", `gate-${renames++ % 2}`]);
      }
    })();
    try {
      for (let i = 0; i < CONNECTIONS; i++) {
        const server = new ControlServer(controlAlways(lab));
        server.markRunning();
        const connection = await server.general();
        await server.close();
        assert.ok(
          connection,
          `control connection ${i + 1} of ${CONNECTIONS} did not open: did the tmux server exit?`,
        );
      }
    } finally {
      renaming = false;
      await renamer;
    }
    assert.ok(renames > CONNECTIONS / 10, `only ${renames} renames ran beside the connections`);
    const alive = await runTmux(lab.tmux, ["has-session"]);
    assert.equal(alive.code, 0, "the tmux server no longer answers after the connections");
  }));
