// The mistakes an agent makes on a first try, each answered with a message that names what to
// fix: the field and the rule a bad argument broke (never the value it sent), and the exact
// target that does not exist. One test per kind of mistake, through a real MCP client.
import assert from "node:assert/strict";
import { type Lab, typeInto, waitForPrompt, waitUntilRunning, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";
import { isKeyName } from "../lib/tools/execute.ts";
import { runTmux } from "../lib/tmux/tmux.ts";

const SECRET = "hunter2-do-not-echo";

function lab(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () =>
    withLab((lab) => withGeneral(lab, { flags: ["--enable-tool", "tmux_run"] }, (s) => fn(lab, s)));
}

async function invalid(s: GeneralSession, tool: string, args: Record<string, unknown>) {
  const result = await s.call(tool, args);
  assert.equal(result.ok, false, JSON.stringify(result));
  assert.equal(result.error.code, "invalid_input");
  assert.equal(result.error.delivery, "not_sent");
  assert.ok(!result.error.message.includes(SECRET), "the message echoes the value");
  return result.error.message as string;
}

Deno.test(
  "a missing field is named, with where to get it",
  lab(async (lab, s) => {
    const message = await invalid(s, "tmux_run", {
      target: { kind: "pane", id: lab.pane },
      script: SECRET,
    });
    assert.match(message, /`target\.generation` is required \(get it from tmux_capabilities/);
    assert.match(await invalid(s, "run_command", { pane_id: lab.pane }), /`command` is required/);
  }),
);

Deno.test(
  "a wrong type names the field and the type it must have",
  lab(async (lab, s) => {
    const message = await invalid(s, "run_command", {
      pane_id: lab.pane,
      command: "true",
      timeout: SECRET,
    });
    assert.match(message, /`timeout` must be a number/);
  }),
);

Deno.test(
  "an unknown parameter is named with the parameters the tool takes",
  lab(async (lab, s) => {
    const message = await invalid(s, "capture_pane", { pane_id: lab.pane, lines: 5 });
    assert.match(message, /`lines` is not a parameter of this tool \(allowed: pane_id, /);
  }),
);

Deno.test(
  "a session name in session_id says the form and points to session_name",
  lab(async (_lab, s) => {
    const message = await invalid(s, "list_windows", { session_id: SECRET });
    assert.match(message, /`session_id` must look like \$N .*use session_name/);
    const pane = await invalid(s, "capture_pane", { pane_id: SECRET });
    assert.match(pane, /`pane_id` must look like %N/);
  }),
);

Deno.test(
  "a script over the limit names the field and the limit, not the script",
  lab(async (lab, s) => {
    const message = await invalid(s, "tmux_run", {
      target: { kind: "pane", id: lab.pane, generation: "g" },
      script: SECRET.repeat(5000),
    });
    assert.match(message, /`script` is over its limit of 65536 characters/);
  }),
);

Deno.test(
  "not_found names the pane, window, session id or session name it could not find",
  lab(async (_lab, s) => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["capture_pane", { pane_id: "%999" }, /^pane %999 does not exist.*list_panes/],
      ["run_command", { pane_id: "%999", command: "true" }, /^pane %999 does not exist/],
      ["wait_for_text", { pane_id: "%999", patterns: ["x"] }, /^pane %999 does not exist/],
      ["list_panes", { window_id: "@999" }, /^window @999 does not exist.*list_windows/],
      ["list_windows", { session_id: "$999" }, /^session \$999 does not exist.*list_sessions/],
      ["list_windows", { session_name: "nope" }, /^session named "nope" does not exist/],
    ];
    for (const [tool, args, expected] of cases) {
      const result = await s.call(tool, args);
      assert.equal(result.error?.code, "not_found", `${tool}: ${JSON.stringify(result)}`);
      assert.match(result.error.message, expected, tool);
    }
  }),
);

Deno.test(
  "send_keys refuses a word that is not a key name, types nothing, and lists the valid forms",
  lab(async (lab, s) => {
    const before = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
    const result = await s.call("send_keys", {
      pane_id: lab.pane,
      keys: "Enter Ctrl-C",
      literal: false,
    });
    assert.equal(result.error?.code, "invalid_input", JSON.stringify(result));
    assert.equal(result.error.delivery, "not_sent");
    assert.match(result.error.message, /^`keys` word 2 of 2 is not a tmux key name/);
    assert.match(result.error.message, /C- \(Ctrl\), M- \(Alt\) or S- \(Shift\), e\.g\. C-c/);
    assert.ok(!result.error.message.includes("Ctrl-C"), "the message echoes the value");
    assert.equal(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane), before);
  }),
);

Deno.test(
  "send_keys accepts tmux's key forms: names in any case, modifiers, ^x and single characters",
  lab(async (lab, s) => {
    await typeInto(lab, "sleep 30", true);
    await waitUntilRunning(lab, "sleep");
    const keys = "a M-Left S-F5 kpenter pgdn ^u C-M-x Escape C-c";
    const result = await s.call("send_keys", { pane_id: lab.pane, keys, literal: false });
    assert.equal(result.ok, true, JSON.stringify(result));
    await waitForPrompt(lab);
  }),
);

Deno.test("send_keys' idea of a key name agrees with tmux's own (bind-key refuses the rest)", () =>
  withLab(async (lab) => {
    const words = [
      "Enter",
      "kpenter",
      "pgdn",
      "M-Left",
      "S-F5",
      "^u",
      "C-M-x",
      "BSpace",
      "KP.",
      "Ctrl-C",
      "F13",
      "Return",
      "C-",
      "ab",
    ];
    for (const word of words) {
      const bound = await runTmux(lab.tmux, ["bind-key", "-T", "probe", word, "refresh-client"]);
      assert.equal(isKeyName(word), bound.code === 0, word);
    }
  }));
