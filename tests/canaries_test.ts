// The person's tmux is theirs: canaries for the ways a control-mode client of ours has hurt a
// person's tmux server (lib/tmux/versions.ts, docs/tmux_versions.md), each with its real cause,
// run against whichever tmux is first on PATH (.ci/run runs the suite on every release people
// use). With the default configuration a tmux before 3.7 never sees a control client of ours;
// from 3.7 one attaches without `read-only` and only while calls use it.
import assert from "node:assert/strict";
import {
  childrenWithArgv,
  type Lab,
  splitPane,
  waitFor,
  waitForPrompt,
  withLab,
} from "./harness.ts";
import { labZshCommand } from "../lib/cli/private_lab.ts";
import { withGeneral } from "./general_session.ts";
import { ControlServer } from "../lib/tmux/control_servers.ts";
import { runTmux, tmuxVersion } from "../lib/tmux/tmux.ts";
import { behaviours } from "../lib/tmux/versions.ts";

/** Whether this tmux gets control mode by default. */
async function controlModeByDefault(lab: Lab): Promise<boolean> {
  return behaviours(await tmuxVersion(lab.tmux)).controlMode;
}

async function tmuxPid(lab: Lab): Promise<number> {
  return Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
}

/** The control clients attached to the lab's tmux server, as `#{client_flags}`. */
async function controlClients(lab: Lab): Promise<string[]> {
  const out = await lab.tmuxCmd("list-clients", "-F", "#{client_control_mode} #{client_flags}");
  return out.split("\n").filter((line) => line.startsWith("1 ")).map((line) => line.slice(2));
}

/** Another process acting on the same tmux in a loop, as a person's scripts would. */
function busyNeighbour(lab: Lab, commands: string[][]) {
  const socket = lab.socketName;
  const loop = commands.map((args) => `"$tmux" -L "$socket" ${args.join(" ")} 2>/dev/null`)
    .join("; ");
  const child = new Deno.Command("sh", {
    args: ["-c", `while :; do ${loop}; done`],
    env: { tmux: lab.tmux.bin, socket },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    stop: async () => {
      child.kill("SIGKILL");
      await child.status;
    },
  };
}

/** The RSS of process `pid` in KiB (/proc/PID/status). */
async function rssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
}

Deno.test("canary: the tmux server outlives 200 fresh connections while another process selects panes and sets buffers", () =>
  withLab(async (lab) => {
    const pid = await tmuxPid(lab);
    await lab.tmuxCmd("split-window", "-d");
    const neighbour = busyNeighbour(lab, [
      ["select-pane", "-t", "{next}"],
      ["set-buffer", "-b", "canary", "x"],
    ]);
    let attached = 0;
    try {
      for (let i = 0; i < 200; i++) {
        // A fresh server's connection, as each new MCP server (or one back from idle) opens.
        const server = new ControlServer(lab.tmux);
        server.markRunning();
        if (await server.general()) attached++;
        await server.close();
      }
    } finally {
      await neighbour.stop();
    }
    assert.equal(await tmuxPid(lab), pid, "the tmux server is not the one the test started");
    // Before 3.7 tmux crashes when notified while a control client identifies (GitHub PR
    // 4980): there no connection is opened at all.
    assert.equal(attached, await controlModeByDefault(lab) ? 200 : 0);
  }));

Deno.test("canary: a stopped control client and a killed session leave the tmux server running, and the wait says what happened", () =>
  withLab(async (lab) => {
    const pid = await tmuxPid(lab);
    // Session A holds the watched pane; the lab's session keeps the server alive.
    const pane = await lab.tmuxCmd(
      "new-session",
      "-d",
      "-s",
      "canary-a",
      "-P",
      "-F",
      "#{pane_id}",
      "exec sleep 600",
    );
    await withGeneral(lab, {}, async (s) => {
      const waiting = s.call("wait_for_text", { pane_id: pane, patterns: ["NEVER"], timeout: 3 });
      let ours: number[] = [];
      if (await controlModeByDefault(lab)) {
        ours = await waitFor("a control client of ours to watch the pane", async () => {
          const children = await controlChildren();
          return children.length > 0 ? children : null;
        });
      } else {
        assert.deepEqual(await controlClients(lab), [], "a control client attached before 3.7");
      }
      for (const child of ours) Deno.kill(child, "SIGSTOP");
      try {
        await lab.tmuxCmd("kill-session", "-t", "canary-a");
        // What is true: the pane is gone (dead, or not found), tmux was not answering, or the
        // wait ran out of time with its last look.
        const result = await waiting;
        const said = result.ok ? result.data.outcome : result.error.code;
        assert.match(
          said,
          /^(pane_dead|not_found|tmux_not_answering|timeout)$/,
          JSON.stringify(result),
        );
      } finally {
        for (const child of ours) {
          try {
            Deno.kill(child, "SIGCONT");
          } catch {
            // Killed by the server after it stopped answering: what it should do.
          }
        }
      }
      assert.equal(await tmuxPid(lab), pid, "the tmux server died");
    });
  }));

/** This process's `tmux -C` children: our control clients. */
async function controlChildren(): Promise<number[]> {
  return (await childrenWithArgv()).filter(({ argv }) => argv?.includes("-C"))
    .map(({ pid }) => pid);
}

Deno.test("canary: tmux's memory stays flat over 30 looks at a busy pane with 10,000 lines of history", () =>
  withLab(async (lab) => {
    const pid = await tmuxPid(lab);
    await lab.tmuxCmd("set-option", "-g", "history-limit", "10000");
    const pane = await lab.tmuxCmd(
      "new-window",
      "-d",
      "-P",
      "-F",
      "#{pane_id}",
      "seq -f 'history line %g of the canary' 1 12000; " +
        "while :; do date +%s.%N; sleep 0.02; done",
    );
    await waitFor("the history to fill", async () => {
      const size = await lab.tmuxCmd("display-message", "-p", "-t", pane, "#{history_size}");
      return Number(size) >= 9_900;
    }, 30_000);
    await withGeneral(lab, {}, async (s) => {
      const look = async () => {
        // The date lines match at once: each call is one look at the pane.
        const found = await s.call("wait_for_text", {
          pane_id: pane,
          patterns: ["\\d+\\.\\d+"],
          regex: true,
          timeout: 10,
        });
        assert.equal(found.data?.outcome, "matched", JSON.stringify(found));
      };
      for (let i = 0; i < 5; i++) await look();
      const before = await rssKiB(pid);
      for (let i = 0; i < 30; i++) await look();
      const grown = (await rssKiB(pid)) - before;
      // A capture leaked per look (tmux before 3.6, to a control client) is about a megabyte
      // here: thirty of them would be thirty.
      assert.ok(grown < 2048, `tmux grew by ${grown} KiB over 30 looks`);
    });
  }));

Deno.test("canary: the person's own send-keys works from outside and from another pane while a call of ours is in flight", () =>
  withLab(async (lab) => {
    // The lab's shell with the lab's tmux first on its PATH, as the person's would have.
    const other = await splitPane(lab, ...labZshCommand(lab.dir, lab.tmux.bin));
    await waitForPrompt(lab);
    await withGeneral(lab, {}, async (s) => {
      // Two calls first, so a connection is open where tmux gets one (the first call spawns).
      assert.ok((await s.call("list_panes")).ok);
      assert.ok((await s.call("list_panes")).ok);
      // A wait in flight from a cursor taken before the keys, so it sees them whenever it looks.
      const waitFrom = async (pattern: string) => {
        const start = await s.call("capture_since", { pane_id: lab.pane });
        assert.ok(start.ok, JSON.stringify(start));
        const answer = s.call("wait_for_text", {
          pane_id: lab.pane,
          patterns: [pattern],
          cursor: start.data.cursor,
          timeout: 60,
        });
        // Settled later; a failure before then must not surface as an unhandled rejection.
        answer.catch(() => {});
        return { answer };
      };
      // From outside tmux: no client of its own, so tmux picks one (ours, if it is the newest).
      const outsideWait = await waitFrom("FROM-OUTSIDE-7");
      const outside = await runTmux(lab.tmux, [
        "send-keys",
        "-t",
        lab.pane,
        "echo FROM-OUTSIDE-$((3+4))",
        "Enter",
      ]);
      assert.equal(outside.code, 0, `send-keys from outside failed: ${outside.stderr}`);
      const fromOutside = await outsideWait.answer;
      assert.equal(fromOutside.data?.outcome, "matched", JSON.stringify(fromOutside));
      // From another pane: the person's shell there, with $TMUX set by tmux.
      await waitForPrompt({ ...lab, pane: other });
      const paneWait = await waitFrom("FROM-PANE-8");
      await lab.tmuxCmd(
        "send-keys",
        "-t",
        other,
        `tmux send-keys -t ${lab.pane} 'echo FROM-PANE-$((4+4))' Enter; echo sent-status=$?`,
        "Enter",
      );
      const screen = await waitFor("the other pane's send-keys to finish", async () => {
        const shown = await lab.tmuxCmd("capture-pane", "-p", "-t", other);
        return /^sent-status=\d+$/m.test(shown) ? shown : null;
      });
      assert.match(screen, /^sent-status=0$/m, screen);
      const fromPane = await paneWait.answer;
      assert.equal(fromPane.data?.outcome, "matched", JSON.stringify(fromPane));
    });
  }));
