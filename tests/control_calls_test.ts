// The general tools through the control connection, against a real tmux: a call opens one (an
// ignore-size control client a person can see in `tmux list-clients`, read-only only before
// tmux 3.7), and a pane
// that prints control-mode block ends, even ones that guess the guard tmux is about to use,
// is captured as text, never taken for the protocol.
import assert from "node:assert/strict";
import { CONTROL_ALWAYS, type Lab, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { tmuxVersion } from "../lib/tmux/tmux.ts";
import { behaviours } from "../lib/tmux/versions.ts";

/** The flags of each client attached to the lab's server. */
async function clientFlags(lab: Lab): Promise<string[]> {
  const out = await lab.tmuxCmd("list-clients", "-F", "#{client_flags}");
  return out.split("\n").filter((line) => line !== "");
}

/** The guard tmux would put on a command run now: its time and the next command numbers. */
async function nextGuards(lab: Lab): Promise<{ time: number; number: number }> {
  const control = new Deno.Command(lab.tmux.bin, {
    args: ["-L", lab.socketName, "-C", "attach", "-f", "ignore-size,read-only"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = control.stdin.getWriter();
  await writer.write(new TextEncoder().encode("display-message -p x\n\n"));
  await writer.close();
  const out = new TextDecoder().decode((await control.output()).stdout);
  const begins = [...out.matchAll(/^%begin (\d+) (\d+) 1$/gm)];
  assert.ok(begins.length > 0, "the probe's control client printed no block of its own");
  const last = begins.at(-1)!;
  return { time: Number(last[1]), number: Number(last[2]) };
}

Deno.test("a general call opens a control client with the flags this tmux's version calls for", () =>
  withLab((lab) =>
    withGeneral(lab, { flags: CONTROL_ALWAYS }, async (s) => {
      assert.deepEqual(await clientFlags(lab), []);
      // The first call goes through a spawned client: only a server that answered one is
      // attached to (attach-session would start a server that is not running).
      assert.equal((await s.call("list_panes")).ok, true);
      const panes = await s.call("list_panes");
      assert.equal(panes.ok, true);
      const flags = await clientFlags(lab);
      assert.equal(flags.length, 1, "one control client after the second call");
      const wanted = behaviours(await tmuxVersion(lab.tmux), "always").attachFlags;
      for (const flag of ["control-mode", ...wanted]) {
        assert.ok(flags[0].split(",").includes(flag), `the client lacks ${flag}`);
      }
      // From tmux 3.7 a read-only client makes tmux refuse the person's own send-keys.
      assert.equal(flags[0].split(",").includes("read-only"), wanted.includes("read-only"));
      const sent = await s.call("send_keys", { pane_id: lab.pane, keys: "echo via-control" });
      assert.equal(sent.ok, true);
      await waitFor("the keys to reach the pane", async () => {
        const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
        return screen.includes("echo via-control");
      });
      assert.equal((await clientFlags(lab)).length, 1, "the same client serves the next call");
    })
  ));

Deno.test("each server has its own control connection, and closing one leaves the other's", () =>
  withLab((lab) =>
    withGeneral(lab, { flags: CONTROL_ALWAYS }, async (first) => {
      // The second call of each server goes through its control connection (the first spawns).
      assert.equal((await first.call("list_panes")).ok, true);
      assert.equal((await first.call("list_panes")).ok, true);
      assert.equal((await clientFlags(lab)).length, 1, "the first server's control client");
      await withGeneral(lab, { flags: CONTROL_ALWAYS }, async (second) => {
        assert.equal((await second.call("list_panes")).ok, true);
        assert.equal((await second.call("list_panes")).ok, true);
        assert.equal((await clientFlags(lab)).length, 2, "each server attached its own client");
      });
      await waitFor("the closed server's control client to detach", async () => {
        return (await clientFlags(lab)).length === 1;
      });
      assert.equal((await first.call("list_panes")).ok, true);
      assert.equal((await clientFlags(lab)).length, 1, "the first server's client still serves it");
    })
  ));

Deno.test("capture_pane returns forged control-mode block ends as the pane's text", () =>
  withLab((lab) =>
    withGeneral(lab, { flags: CONTROL_ALWAYS }, async (s) => {
      await s.call("list_panes");
      await s.call("list_panes");
      assert.equal((await clientFlags(lab)).length, 1, "a control client serves the calls");
      const { time, number } = await nextGuards(lab);
      const forged: string[] = [];
      for (let n = number; n < number + 12; n++) {
        for (const t of [time, time + 1]) {
          forged.push(`%end ${t} ${n} 1`, `%error ${t} ${n} 1`, `%begin ${t} ${n + 1} 1`);
        }
      }
      forged.push("%output %0 forged", "%exit");
      const file = `${lab.dir}/forged.txt`;
      await Deno.writeTextFile(file, forged.join("\n") + "\n");
      await lab.tmuxCmd("resize-window", "-t", lab.pane, "-y", "200");
      await lab.tmuxCmd("send-keys", "-t", lab.pane, `clear; cat ${file}`, "Enter");
      await waitFor("the pane to print the forged lines", async () => {
        const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
        return screen.includes("%exit");
      });
      await waitForPrompt(lab);
      for (let round = 0; round < 3; round++) {
        const captured = await s.call("capture_pane", { pane_id: lab.pane, max_lines: 1000 });
        assert.equal(captured.ok, true, JSON.stringify(captured.error));
        const lines: string[] = captured.data.text.split("\n");
        const start = lines.indexOf(forged[0]);
        assert.ok(start >= 0, "the first forged line is missing from the capture");
        assert.deepEqual(lines.slice(start, start + forged.length), forged);
      }
    })
  ));

Deno.test("search_panes reads history only when asked, numbering lines as capture_pane does", () =>
  withLab((lab) =>
    withGeneral(lab, {}, async (s) => {
      const other = (await lab.tmuxCmd("split-window", "-d", "-P", "-F", "#{pane_id}")).trim();
      await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", "echo hay_$((6*7)); seq 1 300");
      await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
      await waitFor("the needle to scroll into history", async () => {
        const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane);
        return /^300$/m.test(screen);
      });
      const onScreen = await s.call("search_panes", { pattern: "^hay_\\d+$", regex: true });
      assert.equal(onScreen.data.panes_searched, 2);
      assert.deepEqual(onScreen.data.matches, [], "the needle is no longer on the screen");
      const found = await s.call("search_panes", {
        pattern: "^hay_\\d+$",
        regex: true,
        history: true,
      });
      assert.equal(found.data.matches.length, 1, JSON.stringify(found));
      const [match] = found.data.matches;
      assert.equal(match.pane_id, lab.pane);
      assert.ok(match.line < 0, "a history line has a negative number");
      const there = await s.call("capture_pane", {
        pane_id: lab.pane,
        start: match.line,
        end: match.line,
      });
      assert.equal(there.data.text, "hay_42");
      const visible = await s.call("search_panes", { pattern: "300" });
      assert.deepEqual(visible.data.matches.map((m: { pane_id: string }) => m.pane_id), [lab.pane]);
      assert.notEqual(other, lab.pane);
    })
  ));

Deno.test("general calls to a tmux server that is not running start none", () =>
  withLab((lab) =>
    withGeneral(lab, { flags: CONTROL_ALWAYS }, async (s) => {
      const absent = `${lab.socketName}-absent`;
      for (let i = 0; i < 3; i++) {
        const listed = await s.call("list_sessions", { socket_name: absent });
        assert.equal(listed.ok, false);
        assert.equal(listed.error.code, "no_server", JSON.stringify(listed));
      }
      const socket = `${Deno.env.get("TMUX_TMPDIR") ?? "/tmp"}/tmux-${Deno.uid()}/${absent}`;
      await assert.rejects(Deno.lstat(socket), "a tmux server (or its socket) was started");
    })
  ));
