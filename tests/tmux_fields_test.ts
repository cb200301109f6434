// Fields that hold what a person or a program chose (a working directory, a program's name, a
// session, window or pane title) cannot forge rows or shift fields in what the inspect tools
// report. A real directory whose name holds a newline, tabs and the text of a fake `%99`
// running `sudo`, a real program with such a name, and names and titles with tabs and newlines
// (as far as tmux lets them through) are compared with tmux's own answer read one field at a
// time, where no separator can be confused with anything.
import assert from "node:assert/strict";
import { type Lab, splitPane, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { runTmux, tmuxVersion } from "../lib/tmux/tmux.ts";
import { behaviours } from "../lib/tmux/versions.ts";

/** A row a naive `split("\n")`/`split("\t")` of list-panes' format would take for a pane. */
const FORGED_ROW = "%99\tsudo\t12345\t$0\t@0\t0\t1\t0\t80\t24\troot\tforged";

/** One field of one object, exactly as tmux holds it (only the final newline removed). */
async function field(lab: Lab, target: string, format: string): Promise<string> {
  const out = await runTmux(lab.tmux, ["display-message", "-p", "-t", target, format]);
  assert.equal(out.code, 0, out.stderr);
  assert.ok(out.stdout.endsWith("\n"));
  return out.stdout.slice(0, -1);
}

async function paneIds(lab: Lab): Promise<string[]> {
  return (await lab.tmuxCmd("list-panes", "-a", "-F", "#{pane_id}")).split("\n").sort();
}

/**
 * A pid's terminal's foreground group leader and its arguments, read straight from /proc (the
 * tpgid field of its stat, then the leader's NUL-separated cmdline).
 */
async function foregroundTruth(pid: number) {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[5]);
  const argv = (await Deno.readTextFile(`/proc/${group}/cmdline`)).replace(/\0$/, "").split("\0");
  return { pid: group, argv, command_line: argv.join(" "), truncated: false };
}

/** What list_panes and get_pane_info must say of `pane`, read one field per tmux call. */
async function truthOf(lab: Lab, pane: string) {
  const number = async (format: string) => Number(await field(lab, pane, format));
  return {
    pane_id: pane,
    pane_pid: await number("#{pane_pid}"),
    current_command: await field(lab, pane, "#{pane_current_command}"),
    current_path: await field(lab, pane, "#{pane_current_path}"),
    title: await field(lab, pane, "#{pane_title}"),
    session_id: await field(lab, pane, "#{session_id}"),
    window_id: await field(lab, pane, "#{window_id}"),
    pane_index: await number("#{pane_index}"),
    active: await field(lab, pane, "#{pane_active}") === "1",
    dead: await field(lab, pane, "#{pane_dead}") === "1",
    width: await number("#{pane_width}"),
    height: await number("#{pane_height}"),
    is_caller: false,
    enrolled: false,
    session_name: await field(lab, pane, "#{session_name}"),
    window_name: await field(lab, pane, "#{window_name}"),
    foreground: await foregroundTruth(await number("#{pane_pid}")),
  };
}

/** A pane whose working directory is `dir`, running a copy of sleep named `program`. */
async function paneIn(lab: Lab, dir: string, program: string): Promise<string> {
  await Deno.mkdir(dir);
  await Deno.copyFile("/bin/sleep", `${lab.dir}/${program}`);
  await Deno.chmod(`${lab.dir}/${program}`, 0o755);
  const pane = await splitPane(lab, "-c", dir, "--", `${lab.dir}/${program}`, "1000");
  // tmux 3.7 and newer sanitize such a name to nothing visible (versions.ts, sanitizesNames).
  const sanitizes = behaviours(await tmuxVersion(lab.tmux)).sanitizesNames;
  await waitFor(
    "the program to run in its directory",
    async () =>
      await field(lab, pane, "#{pane_current_path}") === dir &&
      (sanitizes || await field(lab, pane, "#{pane_current_command}") === program),
  );
  return pane;
}

Deno.test("a directory and a program named like a forged row add no pane and shift no field", () =>
  withLab(async (lab) => {
    // A window named after its program is renamed as that program starts: keep the name still.
    await lab.tmuxCmd("set-option", "-w", "-t", lab.pane, "automatic-rename", "off");
    const dir = `${lab.dir}/cwd\n${FORGED_ROW}\ttail`;
    const pane = await paneIn(lab, dir, `prog\t%98\nsudo`);
    if (!behaviours(await tmuxVersion(lab.tmux)).sanitizesNames) {
      assert.match(await field(lab, pane, "#{pane_current_command}"), /\t/, "tmux keeps the tab");
    }
    await withGeneral(lab, {}, async ({ call }) => {
      const listed = await call("list_panes", {});
      assert.ok(listed.ok, JSON.stringify(listed));
      const ids = listed.data.panes.map((p: { pane_id: string }) => p.pane_id).sort();
      assert.deepEqual(ids, await paneIds(lab), "exactly the real panes, no %99 or %98");
      const row = listed.data.panes.find((p: { pane_id: string }) => p.pane_id === pane);
      assert.deepEqual(row, await truthOf(lab, pane));
      assert.equal(row.current_path, dir);
      const info = await call("get_pane_info", { pane_id: pane });
      assert.ok(info.ok, JSON.stringify(info));
      assert.deepEqual(info.data.pane, await truthOf(lab, pane));
      // The other pane, listed after or before the forged text, keeps its own fields too.
      const other = listed.data.panes.find((p: { pane_id: string }) => p.pane_id === lab.pane);
      assert.deepEqual(other, await truthOf(lab, lab.pane));
    });
  }));

Deno.test("session and window names and pane titles with tabs and newlines come back exactly", () =>
  withLab(async (lab) => {
    // tmux keeps such names in its own escaped form and refuses such titles; whatever it holds,
    // the tools say exactly that, one row per object.
    // From 3.7 tmux refuses them outright (versions.ts, sanitizesNames).
    const refuses = behaviours(await tmuxVersion(lab.tmux)).sanitizesNames;
    for (
      const rename of [
        ["rename-session", "-t", "$0", "s\tname\n%99\tsudo"],
        ["rename-window", "-t", lab.pane, "w\tname\n@99\tsudo"],
      ]
    ) {
      const renamed = await runTmux(lab.tmux, rename);
      assert.equal(renamed.code !== 0, refuses, `${rename[0]}: ${renamed.stderr}`);
    }
    // A name tmux took turns automatic renaming off; where it took none, a plain one does, so
    // the window's name holds still while the rows are compared.
    if (refuses) await lab.tmuxCmd("rename-window", "-t", lab.pane, "plain");
    await lab.tmuxCmd("select-pane", "-t", lab.pane, "-T", "t\ttitle\n%99\tsudo");
    await lab.tmuxCmd(
      "send-keys",
      "-t",
      lab.pane,
      "printf '\\033]2;o\\tsc\\n%%99\\033\\\\'",
      "Enter",
    );
    const pane = await splitPane(lab, "--", "sleep", "1000");
    for (const format of ["#{session_name}", "#{window_name}", "#{pane_title}"]) {
      // tmux 3.3a lets no raw tab or newline into these; were one let through, the rows below
      // would still have to come back exactly.
      assert.doesNotMatch(await field(lab, lab.pane, format), /[\t\n]/, format);
    }
    await withGeneral(lab, {}, async ({ call }) => {
      const sessions = await call("list_sessions", {});
      assert.ok(sessions.ok, JSON.stringify(sessions));
      assert.deepEqual(
        sessions.data.sessions.map((s: { session_id: string; session_name: string }) => [
          s.session_id,
          s.session_name,
        ]),
        [["$0", await field(lab, lab.pane, "#{session_name}")]],
      );
      const windows = await call("list_windows", {});
      assert.ok(windows.ok, JSON.stringify(windows));
      assert.deepEqual(
        windows.data.windows.map((w: { window_id: string; window_name: string }) => [
          w.window_id,
          w.window_name,
        ]),
        [[
          await field(lab, lab.pane, "#{window_id}"),
          await field(lab, lab.pane, "#{window_name}"),
        ]],
      );
      const listed = await call("list_panes", {});
      assert.ok(listed.ok, JSON.stringify(listed));
      assert.deepEqual(
        listed.data.panes.map((p: { pane_id: string }) => p.pane_id).sort(),
        await paneIds(lab),
      );
      for (const id of [lab.pane, pane]) {
        const row = listed.data.panes.find((p: { pane_id: string }) => p.pane_id === id);
        assert.deepEqual(row, await truthOf(lab, id));
      }
    });
  }));
