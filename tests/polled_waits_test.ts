// Waits without a control connection (tmux before 3.7, or `--control-mode never`): the wait asks
// tmux a one-line question about the pane between its looks (lib/tmux/output_watch.ts) and looks
// only when the answer changed, or now and then, so a quiet pane costs the person's tmux a few
// captures a second at most, and text written wakes the wait without waiting for that interval.
import assert from "node:assert/strict";
import { typeInto, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

Deno.test("a polled wait on a quiet pane asks instead of looking, and wakes when text comes", () =>
  withLab(async (lab) => {
    // A tmux that logs every client's arguments.
    const log = `${lab.dir}/clients`;
    const wrapper = `${lab.dir}/tmux-logging`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${lab.tmux.bin}' "$@"\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    await Deno.writeTextFile(log, "");
    const count = async (word: string) =>
      (await Deno.readTextFile(log)).split("\n").filter((line) => line.includes(word)).length;
    const flags = ["--tmux", wrapper, "--control-mode", "never"];
    await withGeneral(lab, { flags }, async (s) => {
      let reports = 0;
      const waiting = s.call("wait_for_text", {
        pane_id: lab.pane,
        patterns: ["POLLED_WAKE"],
        timeout: 60,
      }, { onprogress: () => reports++ });
      // Settled at the end; a failure before then must not surface as an unhandled rejection.
      waiting.catch(() => {});
      await waitFor("the wait's first report", () => reports > 0, 30_000);
      const captures = await count("capture-pane");
      const questions = await count("#{window_activity}");
      // Two more reports are two seconds: a wait that looked every 100 ms (as before) would have
      // sent about twenty captures; this one looks every 500 ms and asks in between.
      const from = reports;
      await waitFor("two more reports", () => reports >= from + 2, 30_000);
      const looked = (await count("capture-pane")) - captures;
      const asked = (await count("#{window_activity}")) - questions;
      assert.ok(looked <= 6, `${looked} captures of a quiet pane in two seconds`);
      assert.ok(asked > looked, `${asked} questions and ${looked} looks`);
      await typeInto(lab, "echo POLLED_''WAKE", true);
      const result = await waiting;
      assert.equal(result.data?.outcome, "matched", JSON.stringify(result));
    });
  }));
