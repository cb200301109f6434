// Waits while the server's control connection is open, seen from outside the server: the
// control clients tmux lists. Concurrent waits share one connection (issue 18).
import assert from "node:assert/strict";
import { type Lab, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { randomHex } from "../lib/util/ids.ts";

/** The control clients attached to the lab's tmux server. */
async function controlClients(lab: Lab): Promise<number> {
  const out = await lab.tmuxCmd("list-clients", "-F", "#{client_control_mode}");
  return out.split("\n").filter((line) => line === "1").length;
}

/** A new window of the lab's session running a process that writes nothing, and its terminal. */
async function quietPane(lab: Lab): Promise<{ id: string; tty: string }> {
  const id = await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", "exec sleep 600");
  return { id, tty: await lab.tmuxCmd("display-message", "-p", "-t", id, "#{pane_tty}") };
}

Deno.test("ten waits at once on one session's panes share one control connection", () =>
  withLab(async (lab) => {
    const panes: { id: string; tty: string }[] = [];
    for (let i = 0; i < 10; i++) panes.push(await quietPane(lab));
    const tmuxPid = await lab.tmuxCmd("display-message", "-p", "#{pid}");
    await withGeneral(lab, {}, async (s) => {
      const tokens = panes.map(() => `SHARED_${randomHex(4)}`);
      let begun = 0;
      const answered: unknown[] = [];
      const waits = panes.map((pane, i) => {
        let counted = false;
        const args = { pane_id: pane.id, patterns: [tokens[i]], timeout: 30 };
        const onprogress = () => {
          if (!counted) begun++;
          counted = true;
        };
        // A wait that fails after another has failed the test must not fail the run too.
        return s.call("wait_for_text", args, { onprogress }).catch((error) => String(error))
          .then((result) => {
            answered.push(result);
            return result;
          });
      });
      await waitFor("every wait to begin", () => {
        if (answered.length > 0) throw new Error(`a wait answered: ${JSON.stringify(answered)}`);
        return begun === panes.length;
      }, 30_000);
      // Connections opened at once attach at once, and tmux before 3.6 can crash when a control
      // client is sent a notification (another's attach) before it has finished identifying.
      assert.equal(await controlClients(lab), 1, "one control client for the session");
      for (const [i, pane] of panes.entries()) {
        await Deno.writeTextFile(pane.tty, `${tokens[i]}\n`, { append: true });
      }
      for (const [i, wait] of waits.entries()) {
        const result = await wait;
        assert.equal(result.data?.outcome, "matched", JSON.stringify(result));
        assert.equal(result.data.matched_text, tokens[i]);
      }
    });
    assert.equal(await lab.tmuxCmd("display-message", "-p", "#{pid}"), tmuxPid);
  }));
