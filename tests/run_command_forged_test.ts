// A program in the pane that prints run_command's markers cannot end a run or make one up: the
// end marker carries a per-run secret the command never sees, and wait_for_command knows the ids
// this server typed into each pane's shell.
import assert from "node:assert/strict";
import { withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

/** Prints, as run_command's end, the id of the last start marker on the screen with status 0. */
const FORGE = "id=$(tmux capture-pane -p | grep -o '__MCP_START_[0-9a-f]*' | tail -1); " +
  "id=${id#__MCP_START_}; printf '__MCP_DONE_%s:0\\n__MCP_DONE_%s:0:%s\\n' $id $id feedfacecafebeef";

Deno.test("a forged end of the real run does not change its exit status", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const forged = await s.call("run_command", {
        pane_id: lab.pane,
        command: `${FORGE}; sleep 0.3; exit 9`,
      });
      assert.equal(forged.data?.exit_status, 9, JSON.stringify(forged));
      assert.match(forged.data.output, /__MCP_DONE_[0-9a-f]{16}:0$/m, "the forgery was printed");
      // The same while wait_for_command waits: it, too, reads only the real end.
      const timedOut = await s.call("run_command", {
        pane_id: lab.pane,
        command: `sleep 1; ${FORGE}; sleep 0.3; exit 9`,
        timeout: 0.3,
      });
      assert.equal(timedOut.data?.timed_out, true, JSON.stringify(timedOut));
      const waited = await s.call("wait_for_command", {
        pane_id: lab.pane,
        command_id: timedOut.data.command_id,
      });
      assert.equal(waited.data?.exit_status, 9, JSON.stringify(waited));
    })
  ));

Deno.test("wait_for_command refuses an id this server never issued, whatever the pane printed", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const real = await s.call("run_command", { pane_id: lab.pane, command: "echo real" });
      assert.equal(real.data?.exit_status, 0, JSON.stringify(real));
      // A program replays the marker lines it saw, and prints a pair for an id of its own.
      const replay = await s.call("run_command", {
        pane_id: lab.pane,
        command: "tmux capture-pane -p | grep -E '^__MCP_(START|DONE)_'; " +
          "printf '__MCP_START_%s\\n__MCP_DONE_%s:0\\n' feedfacecafebeef feedfacecafebeef",
      });
      assert.equal(replay.data?.exit_status, 0, JSON.stringify(replay));
      const madeUp = await s.call("wait_for_command", {
        pane_id: lab.pane,
        command_id: "feedfacecafebeef",
      });
      assert.equal(madeUp.ok, false, JSON.stringify(madeUp));
      assert.equal(madeUp.error.code, "unknown_command");
      assert.equal(madeUp.error.delivery, "not_sent");
      const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
      const realEnd = screen.split("\n").find((line) => /^__MCP_DONE_\w+:0:\w+$/.test(line));
      assert.ok(realEnd, screen);
      assert.equal(screen.split("\n").filter((line) => line === realEnd).length, 2, "replayed");
    })
  ));

Deno.test("the command never has the run's secret: its file is gone and descriptor 9 closed", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const dir = (await s.server.context.tempFiles.place()).path;
      const looked = await s.call("run_command", {
        pane_id: lab.pane,
        command: `ls -a '${dir}'; cat <&9`,
      });
      assert.notEqual(looked.data?.exit_status, 0, JSON.stringify(looked));
      assert.doesNotMatch(looked.data.output, /run-/, "the secret's file is there");
      const after = [...Deno.readDirSync(dir)].map((entry) => entry.name);
      assert.ok(!after.some((name) => name.startsWith("run-")), after.join());
    })
  ));
