// Waits and captures while the server's control connection is open, seen from outside the
// server: the control clients tmux lists, the command lines tmux receives (logged by a wrapper
// in front of the tmux the server runs), and the server's private directory
// (inotify). Concurrent waits share one connection, a wait over a quiet pane sends no capture
// until the pane writes, nor misses what the pane wrote just before its connection attached,
// and a capture through the connection touches no file (issue 18).
import assert from "node:assert/strict";
import { CONTROL_ALWAYS, type Lab, typeInto, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { tmuxVersion } from "../lib/tmux/tmux.ts";
import { behaviours } from "../lib/tmux/versions.ts";
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

/**
 * A tmux for the server that logs what tmux is asked into `log`: every line written to a
 * control client (`-C`), the command lines of the server's control connections, quoted as the
 * server quotes them; and the argv of every other client. What the control clients print goes
 * to `${log}.out`.
 */
async function loggingTmux(lab: Lab, log: string): Promise<string> {
  const wrapper = `${lab.dir}/tmux-logging`;
  await Deno.writeTextFile(
    wrapper,
    `#!/bin/sh\nfor arg; do\n  if [ "$arg" = -C ]; then\n` +
      `    tee -a '${log}' | '${lab.tmux.bin}' "$@" | tee -a '${log}.out'\n    exit\n` +
      `  fi\ndone\n` +
      `printf 'spawned %s\\n' "$*" >> '${log}'\nexec '${lab.tmux.bin}' "$@"\n`,
  );
  await Deno.chmod(wrapper, 0o755);
  await Deno.writeTextFile(log, "");
  return wrapper;
}

/** How many captures tmux was asked for: through the control connections, or by any client. */
async function capturesSent(log: string, how: "control" | "any"): Promise<number> {
  const word = how === "control" ? "'capture-pane'" : "capture-pane";
  return (await Deno.readTextFile(log)).split("\n").filter((line) => line.includes(word)).length;
}

Deno.test("ten waits at once on one session's panes share one control connection", () =>
  withLab(async (lab) => {
    const panes: { id: string; tty: string }[] = [];
    for (let i = 0; i < 10; i++) panes.push(await quietPane(lab));
    const tmuxPid = await lab.tmuxCmd("display-message", "-p", "#{pid}");
    await withGeneral(lab, { flags: CONTROL_ALWAYS }, async (s) => {
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

Deno.test("a wait over a quiet pane sends no capture until the pane writes", () =>
  withLab(async (lab) => {
    const log = `${lab.dir}/control-lines`;
    const tmux = await loggingTmux(lab, log);
    await withGeneral(lab, { flags: ["--tmux", tmux, ...CONTROL_ALWAYS] }, async (s) => {
      let reports = 0;
      const waiting = s.call("wait_for_text", {
        pane_id: lab.pane,
        patterns: ["WOKEN_BY_OUTPUT"],
        timeout: 30,
      }, { onprogress: () => reports++ }).catch((error) => String(error));
      // Progress comes after the first look, then once a second from the server's own timer.
      // Once the connection has told the pane's state for the first time (`%subscription-
      // changed`, tmux's check after the subscription), which wakes the wait for one look, a
      // report later the wait is idle.
      const told = async () => {
        const out = await Deno.readTextFile(`${log}.out`).catch(() => "");
        return out.split("\n").some((line) =>
            line.startsWith(`%subscription-changed tmux-mcp-dead-${lab.pane.slice(1)} `) &&
            line.includes(` ${lab.pane} `)
          )
          ? { reports }
          : null;
      };
      const toldAt = (await waitFor("the pane's first state report", told, 30_000)).reports;
      await waitFor("a progress report after that", () => reports > toldAt, 30_000);
      assert.equal(await controlClients(lab), 1, "the wait's control connection is open");
      // Before tmux 3.6 a capture printed to a control client leaks (versions.ts): a spawned
      // client prints the look there.
      const printed = behaviours(await tmuxVersion(lab.tmux)).capturePrintsToControl;
      assert.ok(
        await capturesSent(log, printed ? "control" : "any") >= 1,
        printed ? "a look went through the connection" : "a look was taken",
      );
      const settled = await capturesSent(log, "any");
      // Two more reports are two seconds of the wait, in which a wait that looked again on a
      // timer (every 100 ms when it polls) would have sent about twenty captures.
      const quietFrom = reports;
      await waitFor("two more reports", () => reports >= quietFrom + 2, 30_000);
      assert.equal(await capturesSent(log, "any"), settled, "no capture while the pane was quiet");
      await typeInto(lab, "echo WOKEN_BY_''OUTPUT", true);
      const result = await waiting;
      assert.equal(result.data?.outcome, "matched", JSON.stringify(result));
      assert.ok(await capturesSent(log, "any") > settled, "the pane's output woke a look");
    });
  }));

Deno.test("text written right after the wait's first look wakes it, around the connection's attach", () =>
  withLab(async (lab) => {
    // The pane writes right after the wait's first capture: the tmux below writes the text into
    // the pane once tmux has answered that capture, before its client exits. No control client
    // of ours starts while a command of ours is in flight (lib/tmux/identify_gate.ts), so the
    // connection attaches either before the capture (and counts the text as %output) or after
    // the text (and a wait that begins to follow a new connection looks again: output_watch.ts).
    // The control client's subscription to the pane's death is made to name a pane that does
    // not exist, so a death report cannot stand in for either.
    const log = `${lab.dir}/control-lines`;
    const tty = await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_tty}");
    const wrapper = `${lab.dir}/tmux-ordered`;
    await Deno.writeTextFile(
      wrapper,
      `#!/bin/sh\nfor arg; do\n  if [ "$arg" = -C ]; then\n` +
        `    sed -u 's/:%[0-9]*:#{pane_dead}/:%999999:#{pane_dead}/' | tee -a '${log}' | '${lab.tmux.bin}' "$@"\n` +
        `    exit\n  fi\ndone\n` +
        `'${lab.tmux.bin}' "$@"\nstatus=$?\ncase "$*" in *capture-pane*)\n` +
        `  if mkdir '${lab.dir}/first-capture' 2>/dev/null; then\n` +
        `    printf 'BEFORE_ATTACH\\n' > '${tty}'\n  fi\nesac\n` +
        `exit $status\n`,
    );
    await Deno.chmod(wrapper, 0o755);
    await Deno.writeTextFile(log, "");
    await withGeneral(lab, { flags: ["--tmux", wrapper, ...CONTROL_ALWAYS] }, async (s) => {
      let reports = 0;
      const waiting = s.call("wait_for_text", {
        pane_id: lab.pane,
        patterns: ["BEFORE_ATTACH"],
        timeout: 30,
      }, { onprogress: () => reports++ });
      const result = await waiting;
      assert.equal(result.data?.outcome, "matched", JSON.stringify(result));
      // Reports come once a second: a wait that did not look again found the text only at its
      // deadline, 30 s on.
      assert.ok(reports < 5, `the text was found only after ${reports} progress reports`);
    });
  }));

Deno.test("captures with the control connection open touch no file; a paste still does", () =>
  withLab(async (lab) => {
    await withGeneral(lab, { flags: CONTROL_ALWAYS }, async (s) => {
      // The first call to a tmux server goes through a spawned client; it opens the connection.
      assert.ok((await s.call("list_panes", {})).ok);
      assert.ok((await s.call("list_panes", {})).ok);
      assert.equal(await controlClients(lab), 1, "the control connection is open");
      const dir = (await s.server.context.tempFiles.place()).path;
      const watcher = Deno.watchFs(dir, { recursive: false });
      const events: string[] = [];
      const watching = (async () => {
        for await (const event of watcher) {
          for (const path of event.paths) events.push(path.slice(dir.length + 1));
        }
      })();
      // inotify reports in order: a sentinel file made after the calls answered comes after
      // anything they did to a file, so what comes before it is theirs. Sentinels go with the
      // directory when the server closes.
      let read = 0;
      const before = async (name: string) => {
        await Deno.writeTextFile(`${dir}/${name}`, "");
        await waitFor(`the event of ${name}`, () => events.includes(name, read));
        const seen = events.slice(read, events.indexOf(name, read));
        read = events.length;
        return seen.filter((file) => !file.startsWith("sentinel-"));
      };
      try {
        for (let i = 0; i < 20; i++) {
          assert.ok((await s.call("capture_since", { pane_id: lab.pane })).ok);
          assert.ok((await s.call("capture_pane", { pane_id: lab.pane })).ok);
        }
        const wait = await s.call("wait_for_text", {
          pane_id: lab.pane,
          patterns: ["never shown"],
          timeout: 0.5,
        });
        assert.equal(wait.data?.outcome, "timeout", JSON.stringify(wait));
        // Through the connection, or printed by a spawned client where a capture printed to a
        // control client leaks (before tmux 3.6: versions.ts), a look needs no file.
        assert.deepEqual(await before("sentinel-captures"), [], "no file touched by a capture");
        // What the watch can see: a paste goes through a lent file.
        assert.ok((await s.call("paste_text", { pane_id: lab.pane, text: "x" })).ok);
        const pasted = await before("sentinel-paste");
        assert.ok(
          pasted.length > 0 && pasted.every((name) => /^file-\d+$/.test(name)),
          pasted.join(),
        );
      } finally {
        watcher.close();
        await watching;
      }
    });
  }));
