// The teardown tools, run by a server that believes it lives in the lab's first pane (TMUX and
// TMUX_PANE as tmux would set them): its own pane, window, session and server are refused, other
// objects are removed, a %0 on another socket is not "ours", and uncertainty refuses.
import { stopTmuxServer } from "../lib/cli/private_lab.ts";
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import { runTmux, type TmuxClient } from "../lib/tmux/tmux.ts";
import { type Lab, splitPane, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { type GeneralSession, tmuxEnvironmentFor, withGeneral } from "./general_session.ts";

const TEARDOWN = { LIBTMUX_TOOLSETS: "inspect,teardown" };

function inside(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () =>
    withLab(async (lab) =>
      withGeneral(
        lab,
        { env: TEARDOWN, caller: await tmuxEnvironmentFor(lab, lab.pane) },
        (s) => fn(lab, s),
      )
    );
}

async function ids(lab: Lab, format: string): Promise<string[]> {
  return (await lab.tmuxCmd("list-panes", "-a", "-F", format)).split("\n");
}

Deno.test(
  "the server's own pane, window, session and server are refused and survive",
  inside(async (lab, s) => {
    const [window, session, name] = (await lab.tmuxCmd(
      "display-message",
      "-p",
      "-t",
      lab.pane,
      "#{window_id} #{session_id} #{session_name}",
    )).split(" ");
    const attempts: [string, Record<string, unknown>, string][] = [
      ["kill_pane", { pane_id: lab.pane }, `pane ${lab.pane} is the pane`],
      ["kill_window", { window_id: window }, `window ${window} contains the pane`],
      ["kill_session", { session_id: session }, `session ${session} contains the pane`],
      ["kill_session", { session_name: name }, `session ${session} contains the pane`],
      ["kill_server", {}, "this tmux server contains the pane"],
    ];
    for (const [tool, args, level] of attempts) {
      const result = await s.call(tool, args);
      assert.equal(result.ok, false, tool);
      assert.equal(result.error.code, "contains_caller", tool);
      assert.equal(result.error.delivery, "not_sent");
      assert.ok(result.error.message.startsWith(level), `${tool}: ${result.error.message}`);
    }
    assert.deepEqual(await ids(lab, "#{pane_id}"), [lab.pane]);
  }),
);

Deno.test(
  "other panes, windows and sessions on the same server are removed",
  inside(async (lab, s) => {
    const sibling = await splitPane(lab);
    const pane = await s.call("kill_pane", { pane_id: sibling });
    assert.deepEqual(pane.data, { killed: sibling });
    const window = await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{window_id}");
    assert.deepEqual((await s.call("kill_window", { window_id: window })).data, { killed: window });
    const session = await lab.tmuxCmd(
      "new-session",
      "-d",
      "-s",
      "other",
      "-P",
      "-F",
      "#{session_id}",
    );
    const killed = await s.call("kill_session", { session_name: "other" });
    assert.deepEqual(killed.data, { killed: session });
    assert.deepEqual(await ids(lab, "#{pane_id}"), [lab.pane]);
  }),
);

Deno.test(
  "a session name is matched exactly, never as a prefix",
  inside(async (lab, s) => {
    await lab.tmuxCmd("new-session", "-d", "-s", "buildbox");
    const result = await s.call("kill_session", { session_name: "build" });
    assert.equal(result.error.code, "not_found");
    assert.equal((await ids(lab, "#{session_name}")).filter((n) => n === "buildbox").length, 1);
  }),
);

Deno.test(
  "pane %0 on another socket is not the caller's, and is removed",
  inside(async (_lab, s) => {
    const other: TmuxClient = {
      bin: "tmux",
      socket: { kind: "name", name: `tmux-mcp-other-${randomHex(6)}` },
    };
    try {
      const started = await runTmux(other, ["-f", "/dev/null", "new-session", "-d", "sleep 60"]);
      assert.equal(started.code, 0);
      const pane = (await runTmux(other, ["display-message", "-p", "#{pane_id}"])).stdout.trim();
      const socket_name = (other.socket as { name: string }).name;
      await runTmux(other, ["new-window", "-d", "sleep 60"]);
      const result = await s.call("kill_pane", { pane_id: pane, socket_name });
      assert.equal(result.ok, true, JSON.stringify(result));
      const killedServer = await s.call("kill_server", { socket_name });
      assert.deepEqual(killedServer.data, { killed: "server" });
    } finally {
      await stopTmuxServer(other);
    }
  }),
);

Deno.test("when the caller's tmux identity cannot be established, teardown refuses", () =>
  withLab(async (lab) => {
    const sibling = await splitPane(lab);
    const uncertain = [
      { tmux: `${lab.dir}/no-such-socket,1,0`, pane: lab.pane },
      { tmux: (await tmuxEnvironmentFor(lab, lab.pane)).tmux },
      { pane: "%0" },
    ];
    for (const caller of uncertain) {
      await withGeneral(lab, { env: TEARDOWN, caller }, async (s) => {
        const result = await s.call("kill_pane", { pane_id: sibling });
        assert.equal(result.error?.code, "contains_caller", JSON.stringify(caller));
        assert.match(result.error.message, new RegExp(`cannot be ruled out that pane ${sibling} `));
      });
    }
    assert.equal((await ids(lab, "#{pane_id}")).length, 2);
  }));

Deno.test("a server not running inside tmux may remove anything, including the server", () =>
  withLab((lab) =>
    withGeneral(lab, { env: TEARDOWN, caller: {} }, async (s) => {
      const result = await s.call("kill_server");
      assert.deepEqual(result.data, { killed: "server" });
      await waitFor("the server to exit", async () =>
        (await runTmux(lab.tmux, ["list-sessions"])).code !== 0);
      const again = await s.call("kill_server");
      assert.equal(again.error.code, "no_server");
    })
  ));

Deno.test(
  "clear_history removes a pane's scrollback but not its screen",
  inside(async (lab, s) => {
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "seq 1 100", "Enter");
    await waitFor(
      "seq to finish",
      async () => /^100$/m.test(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)),
    );
    await waitForPrompt(lab);
    assert.notEqual(
      await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{history_size}"),
      "0",
    );
    const result = await s.call("clear_history", { pane_id: lab.pane });
    assert.deepEqual(result.data, { target: lab.pane });
    assert.equal(
      await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{history_size}"),
      "0",
    );
    const missing = await s.call("clear_history", { pane_id: "%404" });
    assert.equal(missing.error.code, "not_found");
  }),
);
