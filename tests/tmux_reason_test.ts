// A command tmux refuses is answered with tmux's own reason, so the agent can tell what to fix,
// yet never with a value the agent sent: tmux repeats names it could not use, and those are cut
// from the reason (lib/tmux/targets.ts, failureFor), which the tools say in words
// (lib/tools/_tmux_refusals.ts). The refusal keeps its code and shape.
import assert from "node:assert/strict";
import { type Payload, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { failureFor, REASON_CHARS } from "../lib/tmux/targets.ts";
import { tmuxRefusal } from "../lib/tools/_tmux_refusals.ts";
import { randomHex } from "../lib/util/ids.ts";

const PREFIX = "tmux refused the command: ";

/** What a tool answers for a command tmux refused with `stderr`. */
function refusedWith(stderr: string, args: string[]): Payload {
  return tmuxRefusal(failureFor(stderr, args));
}

/** A tmux_failed refusal of the one shape every refusal has, with its message as one line. */
function assertTmuxFailed(payload: Payload): string {
  assert.deepEqual(Object.keys(payload).sort(), ["error", "ok"]);
  assert.equal(payload.ok, false);
  assert.deepEqual(Object.keys(payload.error).sort(), ["code", "delivery", "message"]);
  assert.equal(payload.error.code, "tmux_failed");
  assert.equal(payload.error.delivery, "not_sent");
  const message: string = payload.error.message;
  assert.ok(!/[\n\r]/.test(message), `the message is not one line: ${JSON.stringify(message)}`);
  return message;
}

Deno.test("tmux_failed: show_options of an unknown option says tmux's reason, not the name", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const name = `agent-option-${randomHex(4)}`;
      const refused = await s.call("show_options", { scope: "server", name });
      const message = assertTmuxFailed(refused);
      assert.ok(message.startsWith(`${PREFIX}invalid option`), message);
      assert.ok(!message.includes(name), `the message echoes the agent's name: ${message}`);
      assert.ok(!message.includes("agent-option"), `the message echoes part of it: ${message}`);
    })
  ));

Deno.test("tmux_failed: the reason keeps ids and command names and cuts every other argument", () => {
  const args = [
    "send-keys",
    "-t",
    "%3",
    "-l",
    "--",
    "rm -rf ~/secret",
    ";",
    "paste-buffer",
    "-b",
    "x",
  ];
  const reason = "send-keys: pane %3 took rm -rf ~/secret, then rm -rf ~/secrets in syntax x";
  const message = assertTmuxFailed(refusedWith(`${reason}\nsecond line\n`, args));
  // A short value is cut only as a whole word: "syntax" keeps its x.
  assert.equal(message, `${PREFIX}send-keys: pane %3 took \u2026, then \u2026s in syntax \u2026`);
  // A session named with `=` and `:` comes back from tmux without them.
  const renamed = refusedWith("duplicate session: work", ["rename-session", "-t", "=work:", "x"]);
  assert.equal(assertTmuxFailed(renamed), `${PREFIX}duplicate session: \u2026`);
});

Deno.test("tmux_failed: a long or odd reason is one bounded line; no reason keeps the old text", () => {
  const long = assertTmuxFailed(refusedWith(`${"\u00e9".repeat(500)}\tx`, ["list-sessions"]));
  assert.equal(Array.from(long).length, PREFIX.length + REASON_CHARS);
  assert.ok(long.endsWith("\u00e9\u2026"), long);
  const control = assertTmuxFailed(refusedWith("bad\u001b[31m name\u0007", ["list-sessions"]));
  assert.equal(control, `${PREFIX}bad?[31m name?`);
  assert.equal(assertTmuxFailed(refusedWith("\n \n", [])), "tmux refused the command");
  assert.deepEqual(failureFor("can't find pane: %9", ["send-keys", "-t", "%9"]), {
    kind: "not_found",
  });
});
