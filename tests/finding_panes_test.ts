// Finding the pane that runs some program, as an agent would: list_panes names each pane's
// session and window and its foreground process's command line, read from the kernel (the
// terminal's foreground group leader), not from what the pane shows; it follows the foreground
// job as it starts and ends, and says when it cut a long command line.
import assert from "node:assert/strict";
import { type Lab, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";
import type { Payload } from "./harness.ts";

function lab(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((l) => withGeneral(l, {}, (s) => fn(l, s)));
}

/** The row of `pane` in a fresh list_panes. */
async function rowOf(s: GeneralSession, pane: string): Promise<Payload> {
  const listed = await s.call("list_panes");
  assert.ok(listed.ok, JSON.stringify(listed));
  return listed.data.panes.find((p: { pane_id: string }) => p.pane_id === pane);
}

/** Waits until the pane's foreground process is no longer its shell, and returns its row. */
async function busyRow(s: GeneralSession, lab: Lab, program: string): Promise<Payload> {
  return await waitFor(`${program} in the foreground`, async () => {
    const row = await rowOf(s, lab.pane);
    return row.foreground?.argv?.[0] === program ? row : null;
  });
}

Deno.test(
  "list_panes names the session and window and the foreground program's exact arguments",
  lab(async (lab, s) => {
    await lab.tmuxCmd("rename-session", "-t", "$0", "work");
    await lab.tmuxCmd("rename-window", "-t", lab.pane, "server");
    const shell = await rowOf(s, lab.pane);
    assert.equal(shell.session_name, "work");
    assert.equal(shell.window_name, "server");
    assert.deepEqual(shell.foreground, {
      pid: shell.pane_pid,
      argv: ["zsh", "-i"],
      command_line: "zsh -i",
      truncated: false,
    });
    // The typed line (quotes, a variable) differs from the arguments the program received.
    await lab.tmuxCmd(
      "send-keys",
      "-t",
      lab.pane,
      "-l",
      `X=srv; sh -c 'sleep 1000; :' "two words" "$X" $'tab\\there'`,
    );
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    const busy = await busyRow(s, lab, "sh");
    assert.deepEqual(busy.foreground.argv, [
      "sh",
      "-c",
      "sleep 1000; :",
      "two words",
      "srv",
      "tab\there",
    ]);
    assert.equal(busy.foreground.command_line, "sh -c sleep 1000; : two words srv tab\there");
    assert.notEqual(busy.foreground.pid, busy.pane_pid, "the job, not the shell");
    assert.equal(busy.foreground.truncated, false);
    const info = await s.call("get_pane_info", { pane_id: lab.pane });
    assert.deepEqual(info.data.pane.foreground, busy.foreground);
    assert.equal(info.data.pane.session_name, "work");
    // Once the job ends the shell is in the foreground again.
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await waitForPrompt(lab);
    await waitFor(
      "the shell in the foreground",
      async () => (await rowOf(s, lab.pane)).foreground?.pid === shell.pane_pid,
    );
  }),
);

Deno.test(
  "a command line over its bounds comes back cut to 32 arguments, saying so",
  lab(async (lab, s) => {
    const many = Array.from({ length: 40 }, (_, i) => `arg${i}`).join(" ");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", `sh -c 'sleep 1000; :' ${many}`);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    const busy = await busyRow(s, lab, "sh");
    assert.equal(busy.foreground.argv.length, 32);
    assert.equal(busy.foreground.argv.at(-1), "arg28");
    assert.equal(busy.foreground.truncated, true);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "C-c");
    await waitForPrompt(lab);
  }),
);
