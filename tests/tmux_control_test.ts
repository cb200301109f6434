// The control-mode connection against a real tmux: it answers commands (reads as a spawned
// client would), wakes a wait when a pane writes (and pauses panes nobody waits on), does not
// pass for a person, comes back after the tmux server restarts, gives way to spawned clients
// when control mode is unavailable, and keeps the guard's command line in one queue turn. It
// runs the machinery on every tmux (`controlAlways`), as a person who opted in would.
import assert from "node:assert/strict";
import {
  controlAlways,
  type Lab,
  processExists,
  splitPane,
  typeInto,
  waitFor,
  waitForPrompt,
  withLab,
  zshCommand,
} from "./harness.ts";
import { authorize } from "../lib/run/guard.ts";
import { closeControlConnections, controlCall, controlRun } from "../lib/tmux/control_servers.ts";
import { watchOutput } from "../lib/tmux/output_watch.ts";
import { tmuxCall } from "../lib/tmux/targets.ts";
import { runTmux, type TmuxClient, tmuxVersion } from "../lib/tmux/tmux.ts";
import { behaviours } from "../lib/tmux/versions.ts";
import { snapshot } from "../lib/tmux/capture.ts";

import { labTmuxBinary } from "../lib/cli/private_lab.ts";

/** The client flags of each control client attached to the lab's server. */
async function controlClients(lab: Lab): Promise<string[]> {
  const out = await lab.tmuxCmd(
    "list-clients",
    "-F",
    "#{client_control_mode} #{client_flags}",
  );
  return out.split("\n").filter((line) => line.startsWith("1 ")).map((line) => line.slice(2));
}

async function panePid(lab: Lab): Promise<number> {
  return Number(await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_pid}"));
}

/** Fails the test with `what` if `promise` has not settled within a generous bound. */
async function within<T>(what: string, promise: Promise<T>, ms = 30_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, bound]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a control connection answers commands and is not counted as a person", () =>
  withLab(async (lab) => {
    const size = "#{window_width}x#{window_height}";
    const before = await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, size);
    try {
      const result = await controlRun(controlAlways(lab), lab.pane, [
        "display-message",
        "-p",
        "-t",
        lab.pane,
        "#{pane_id}",
        ";",
        "display-message",
        "-p",
        "second",
      ]);
      assert.deepEqual(result, { code: 0, stdout: `${lab.pane}\nsecond\n`, stderr: "" });
      const failed = await controlRun(controlAlways(lab), lab.pane, ["list-panes", "-t", "%999"]);
      assert.equal(failed?.code, 1);
      const clients = await controlClients(lab);
      assert.equal(clients.length, 1);
      for (const flag of behaviours(await tmuxVersion(lab.tmux), "always").attachFlags) {
        assert.ok(clients[0].split(",").includes(flag), `the control client lacks ${flag}`);
      }
      assert.equal(await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, size), before);
    } finally {
      await closeControlConnections();
    }
    assert.deepEqual(await controlClients(lab), []);
  }));

Deno.test("a read through a control connection answers as a spawned client does", () =>
  withLab(async (lab) => {
    await lab.tmuxCmd("rename-window", "-t", lab.pane, "ünïcode 😀 name");
    const args = ["list-panes", "-a", "-F", "#{pane_id}\t#{window_name}\t#{pane_pid}"];
    try {
      assert.equal((await controlClients(lab)).length, 0, "no connection is open yet");
      // Only a server that answered a spawned client is attached to (attach-session would
      // start one that is not running); tmuxCall's spawned answer shows this one runs.
      assert.equal(
        await controlCall(controlAlways(lab), args),
        null,
        "no spawned client was answered yet",
      );
      assert.equal((await tmuxCall(controlAlways(lab), args)).ok, true);
      const viaControl = await controlCall(controlAlways(lab), args);
      assert.equal((await controlClients(lab)).length, 1, "the call opened one");
      assert.ok(viaControl?.stdout.includes(`${lab.pane}\tünïcode 😀 name\t`));
      assert.deepEqual(viaControl, await runTmux(lab.tmux, args));
      assert.equal(
        await controlCall(controlAlways(lab), ["new-window", "-d"]),
        null,
        "not a routed read",
      );
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("a wait on a pane that does not exist does not turn control mode off", () =>
  withLab(async (lab) => {
    try {
      const never = new AbortController().signal;
      await within(
        "a wait on a missing pane",
        watchOutput(controlAlways(lab), "%999").wake(50, never),
      );
      assert.equal(
        (await controlRun(controlAlways(lab), lab.pane, ["display-message", "-p", "ok"]))?.stdout,
        "ok\n",
      );
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("a wait wakes when the pane writes", () =>
  withLab(async (lab) => {
    try {
      const output = watchOutput(controlAlways(lab), lab.pane);
      // The first wake returns once the connection is attached; the pane has not written yet.
      await within("the connection to attach", output.wake(600_000, new AbortController().signal));
      assert.equal((await controlClients(lab)).length, 1);
      // Nothing else ends this wake for ten minutes: only the pane's output can.
      const waking = output.wake(600_000, new AbortController().signal);
      await typeInto(lab, "echo WOKEN", true);
      await within("the wait to wake on the pane's output", waking);
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("a pane nobody waits on is paused, and a wait on it resumes it", () =>
  withLab(async (lab) => {
    const never = new AbortController().signal;
    try {
      await within(
        "the connection to attach",
        watchOutput(controlAlways(lab), lab.pane).wake(600_000, never),
      );
      const other = await splitPane(lab, ...zshCommand(lab.dir));
      await waitForPrompt({ ...lab, pane: other });
      const later = watchOutput(controlAlways(lab), other);
      await within("the pane to be watched again", later.wake(600_000, never));
      const waking = later.wake(600_000, never);
      await lab.tmuxCmd("send-keys", "-t", other, "-l", "echo AGAIN");
      await lab.tmuxCmd("send-keys", "-t", other, "Enter");
      await within("the wait to wake on the pane's output", waking);
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("silencing and resuming a pane while it writes leaves the tmux server running", () =>
  withLab(async (lab) => {
    const never = new AbortController().signal;
    try {
      await within(
        "the connection to attach",
        watchOutput(controlAlways(lab), lab.pane).wake(600_000, never),
      );
      // A new pane writes before anyone waits on it, so it is silenced with output in flight;
      // a wait then resumes it while it still writes. (tmux 3.3a crashed when this was done
      // with `off` and `on`.)
      for (let round = 0; round < 10; round++) {
        const pane = await splitPane(
          lab,
          "sh",
          "-c",
          "seq 1 20000; printf '%s%s\\n' DO NE; exec sleep 60",
        );
        const watch = watchOutput(controlAlways(lab), pane);
        await waitFor(`the output of round ${round} to end`, async () => {
          await watch.wake(100, never);
          return (await lab.tmuxCmd("capture-pane", "-p", "-t", pane)).includes("DONE");
        });
        await lab.tmuxCmd("kill-pane", "-t", pane);
      }
      assert.equal(
        await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_id}"),
        lab.pane,
      );
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("the control connection comes back after the tmux server restarts", () =>
  withLab(async (lab) => {
    try {
      const first = await controlRun(controlAlways(lab), lab.pane, [
        "display-message",
        "-p",
        "one",
      ]);
      assert.equal(first?.stdout, "one\n");
      const serverPid = Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
      await lab.tmuxCmd("kill-server");
      await waitFor("the tmux server to exit", async () => !await processExists(serverPid));
      await lab.tmuxCmd("-f", "/dev/null", "new-session", "-d", "--", ...zshCommand(lab.dir));
      const pane = await lab.tmuxCmd("display-message", "-p", "-t", "$0", "#{pane_id}");
      await waitForPrompt({ ...lab, pane });
      const again = await waitFor("a command through a new control connection", async () => {
        const result = await controlRun(controlAlways(lab), pane, ["display-message", "-p", "two"])
          .catch(() => null);
        return result?.stdout === "two\n" ? result : null;
      });
      assert.equal(again.code, 0);
      assert.equal((await controlClients(lab)).length, 1);
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("without control mode, commands fall back to spawned clients and waits to polling", () =>
  withLab(async (lab) => {
    const wrapper = `${lab.dir}/tmux-without-control-mode`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\nfor arg; do [ "$arg" = -C ] && exit 1; done\nexec tmux "$@"\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    const tmux: TmuxClient = { bin: wrapper, socket: lab.tmux.socket, controlMode: "always" };
    try {
      assert.equal(await controlRun(tmux, lab.pane, ["display-message", "-p", "x"]), null);
      const signal = new AbortController().signal;
      assert.equal(await authorize(tmux, lab.pane, await panePid(lab), signal), "granted");
      assert.equal(await authorize(tmux, lab.pane, 1, signal), "denied");
      const output = watchOutput(tmux, lab.pane);
      await within("a polling wake to return", output.wake(50, signal));
      assert.deepEqual(await controlClients(lab), []);
    } finally {
      await closeControlConnections();
    }
  }));

Deno.test("a capture through a control connection keeps lines that look like its answers", () =>
  withLab(async (lab) => {
    // What the pane shows: every form a control-mode answer or notification takes. The capture
    // is the connection's answer itself: a forged block end whose numbers are not the answer's
    // stays text, and one that guessed them is found out and the look taken by a spawned client.
    const forged = [
      "%begin 1764513600 41 1",
      "%end 1764513600 41 1",
      "%error 1764513600 42 1",
      `%output ${lab.pane} forged`,
      "%session-changed $9 forged",
    ];
    await lab.tmuxCmd(
      "respawn-pane",
      "-k",
      "-t",
      lab.pane,
      `printf '%s\\n' ${forged.map((line) => `'${line}'`).join(" ")}; ` +
        `printf 'ünïcode 😀\\nforged-done\\n'; exec sleep 1000`,
    );
    await waitFor(
      "the pane to show its lines",
      async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("forged-done"),
    );
    // A tmux that counts its clients: the look that cannot trust the connection's answer starts one.
    const spawns = `${lab.dir}/tmux-clients`;
    const wrapper = `${lab.dir}/tmux-counting`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\necho x >> '${spawns}'\nexec '${lab.tmux.bin}' "$@"\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    const tmux: TmuxClient = { bin: wrapper, socket: lab.tmux.socket, controlMode: "always" };
    const clients = async () => (await Deno.readTextFile(spawns)).split("\n").length - 1;
    try {
      await controlRun(tmux, lab.pane, ["display-message", "-p", "open"]);
      const opened = await clients();
      const shot = await snapshot(tmux, lab.pane);
      assert.ok(shot.ok, JSON.stringify(shot));
      const lines = shot.value.lines.map((line) => line.trimEnd());
      const first = lines.indexOf(forged[0]);
      assert.deepEqual(lines.slice(first, first + forged.length + 2), [
        ...forged,
        "ünïcode 😀",
        "forged-done",
      ]);
      assert.equal(await lab.tmuxCmd("list-buffers"), "", "no buffer is left behind");
      // The pane shows lines shaped like notifications (`%output`, `%session-changed`), which
      // tmux before master could write inside an answer: such an answer is not taken as exact
      // (control_lines.ts), so the look is taken again by a spawned client, on every version.
      assert.ok(await clients() > opened, "the look was taken again by a spawned client");
    } finally {
      await closeControlConnections();
    }
  }));

/** Whether this process may give a child its own mount namespace (root, and unshare allowed). */
async function canUnshareMounts(): Promise<boolean> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  const probe = await new Deno.Command("unshare", {
    args: ["--mount", "--propagation", "private", "true"],
    stdout: "null",
    stderr: "null",
  }).output().catch(() => null);
  return probe?.success ?? false;
}

Deno.test({
  name: "a capture is right when the tmux server sees another /tmp than this process",
  ignore: !await canUnshareMounts(),
  fn: async () => {
    // A tmux server in its own mount namespace with a tmpfs over /tmp, its socket outside /tmp:
    // it would write a file named for a capture into its own /tmp, so a look needs none.
    const dir = await Deno.makeTempDir({ dir: "/dev/shm", prefix: "tmux-mcp-ns-" });
    const bin = await labTmuxBinary();
    const tmux: TmuxClient = { bin, socket: { kind: "path", path: `${dir}/socket` } };
    try {
      const started = await new Deno.Command("unshare", {
        args: [
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          `mount -t tmpfs tmpfs /tmp && exec '${bin}' -u -S '${dir}/socket' -f /dev/null ` +
          `new-session -d -x 80 -y 24 -- sh -c 'echo marker-in-namespace; exec sleep 1000'`,
        ],
      }).output();
      assert.ok(started.success, new TextDecoder().decode(started.stderr));
      await waitFor(
        "the pane to show its line",
        async () =>
          (await runTmux(tmux, ["capture-pane", "-p", "-t", "%0"])).stdout.includes("marker"),
      );
      await controlRun(tmux, "%0", ["display-message", "-p", "open"]);
      const shot = await snapshot(tmux, "%0");
      assert.ok(shot.ok, JSON.stringify(shot));
      assert.ok(shot.value.lines.includes("marker-in-namespace"), JSON.stringify(shot.value));
      assert.equal((await runTmux(tmux, ["list-buffers"])).stdout, "", "no buffer is left");
    } finally {
      await closeControlConnections();
      await runTmux(tmux, ["kill-server"]).catch(() => {});
      await waitFor(
        "the namespaced tmux server to go",
        async () =>
          !(await new Deno.Command("pgrep", { args: ["-f", `${dir}/socket`] }).output()).success,
      );
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test(
  "the guard's command line runs in one queue turn: a respawn released by it runs after it",
  () =>
    withLab(async (lab) => {
      const signal = new AbortController().signal;
      try {
        const pid = await panePid(lab);
        assert.equal(await authorize(controlAlways(lab), lab.pane, pid, signal), "granted");
        assert.equal((await controlClients(lab)).length, 1, "the guard used no control client");
        // A rogue client waits, inside tmux's queue, to respawn the pane; the guard's first
        // command releases it through a user hook. If the guard's checks ran in a later queue
        // turn than that command, the respawn would run first and the guard would deny.
        await lab.tmuxCmd("set-hook", "-g", "after-show-options", "wait-for -S release");
        const rogue = new Deno.Command("tmux", {
          args: [
            "-u",
            "-L",
            lab.socketName,
            "wait-for",
            "-S",
            "rogue-ready",
            ";",
            "wait-for",
            "release",
            ";",
            "respawn-pane",
            "-k",
            "-t",
            lab.pane,
          ],
          stdout: "null",
          stderr: "null",
        }).spawn();
        await lab.tmuxCmd("wait-for", "rogue-ready");
        assert.equal(await authorize(controlAlways(lab), lab.pane, pid, signal), "granted");
        assert.equal((await rogue.status).code, 0);
        assert.notEqual(await panePid(lab), pid, "the released respawn did not run");
        assert.equal(await authorize(controlAlways(lab), lab.pane, pid, signal), "denied");
      } finally {
        await closeControlConnections();
      }
    }),
);
