// The inspect, manage and execute tools against a real tmux server: each one's ordinary use and
// its main refusal, exact targets (no fallback to some other object), formats that could run
// shell commands, and the per-call socket_name.
import { stopTmuxServer } from "../lib/cli/private_lab.ts";
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import type { TmuxClient } from "../lib/tmux/tmux.ts";
import {
  type Lab,
  splitPane,
  waitFor,
  waitForPrompt,
  waitUntilRunning,
  withLab,
} from "./harness.ts";
import { type GeneralSession, tmuxEnvironmentFor, withGeneral } from "./general_session.ts";

function lab(fn: (lab: Lab, s: GeneralSession) => Promise<void>): () => Promise<void> {
  return () => withLab((l) => withGeneral(l, {}, (s) => fn(l, s)));
}

Deno.test(
  "list_sessions, list_windows and list_panes describe the server by exact ids",
  lab(async (lab, s) => {
    const sessions = await s.call("list_sessions");
    assert.equal(sessions.data.sessions.length, 1);
    assert.equal(sessions.data.sessions[0].session_id, "$0");
    const windows = await s.call("list_windows", { session_id: "$0" });
    assert.equal(windows.data.windows.length, 1);
    const window = windows.data.windows[0].window_id;
    const panes = await s.call("list_panes", { window_id: window });
    assert.equal(panes.data.panes.length, 1);
    const pane = panes.data.panes[0];
    assert.equal(pane.pane_id, lab.pane);
    assert.equal(pane.current_command, "zsh");
    assert.equal(pane.is_caller, false);
    assert.equal(pane.enrolled, false);
    const missing = await s.call("list_panes", { session_name: "nope" });
    assert.equal(missing.error.code, "not_found");
  }),
);

Deno.test("list_panes marks the pane the server runs in as is_caller", () =>
  withLab(async (lab) => {
    const caller = await tmuxEnvironmentFor(lab, lab.pane);
    await lab.tmuxCmd("split-window", "-d", "-t", lab.pane);
    await withGeneral(lab, { caller }, async (s) => {
      const panes = await s.call("list_panes");
      const marked = panes.data.panes.filter((p: { is_caller: boolean }) => p.is_caller);
      assert.deepEqual(marked.map((p: { pane_id: string }) => p.pane_id), [lab.pane]);
    });
  }));

Deno.test(
  "get_pane_info expands a safe format and refuses one that could run a command",
  lab(async (lab, s) => {
    const info = await s.call("get_pane_info", {
      pane_id: lab.pane,
      format: "#{pane_width}x#{pane_height}",
    });
    assert.equal(info.data.format_result, "160x40");
    assert.equal(info.data.pane.pane_id, lab.pane);
    for (const format of ["#(touch /tmp/x)", "#{E:status-left}", "#{l;T:status-right}"]) {
      const refused = await s.call("get_pane_info", { pane_id: lab.pane, format });
      assert.equal(refused.error.code, "unsafe_format", format);
    }
    const missing = await s.call("get_pane_info", { pane_id: "%77" });
    assert.equal(missing.error.code, "not_found");
  }),
);

Deno.test(
  "capture_pane returns the screen and keeps the tail when bounded",
  lab(async (lab, s) => {
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", "seq 1 30");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    await waitFor(
      "seq output",
      async () => /^30$/m.test(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)),
    );
    await waitForPrompt(lab);
    const all = await s.call("capture_pane", { pane_id: lab.pane });
    assert.match(all.data.text, /^1\n2\n3$/m);
    assert.equal(all.data.truncated_lines, 0);
    const tail = await s.call("capture_pane", { pane_id: lab.pane, max_lines: 2 });
    assert.equal(tail.data.text, "30\nlab#");
    assert.ok(tail.data.truncated_lines > 0);
    const missing = await s.call("capture_pane", { pane_id: "%77" });
    assert.equal(missing.error.code, "not_found");
  }),
);

Deno.test(
  "search_panes finds the pane showing some text",
  lab(async (lab, s) => {
    await lab.tmuxCmd("split-window", "-d", "-t", lab.pane);
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", "echo needle_$((6*7))");
    await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
    await waitFor(
      "the output",
      async () => /^needle_42$/m.test(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)),
    );
    const found = await s.call("search_panes", { pattern: "^needle_\\d+$", regex: true });
    assert.equal(found.data.panes_searched, 2);
    assert.deepEqual(
      found.data.matches.map((m: { pane_id: string; text: string }) => [m.pane_id, m.text]),
      [[lab.pane, "needle_42"]],
    );
    const bad = await s.call("search_panes", { pattern: "(", regex: true });
    assert.equal(bad.error.code, "invalid_pattern");
  }),
);

Deno.test(
  "show_options reads one option at a scope and needs a target for object scopes",
  lab(async (lab, s) => {
    await lab.tmuxCmd("set-option", "-t", "$0", "@probe", "yes");
    const shown = await s.call("show_options", {
      scope: "session",
      session_id: "$0",
      name: "@probe",
    });
    assert.deepEqual(shown.data.options, [{ name: "@probe", value: "yes" }]);
    const global = await s.call("show_options", { scope: "window", global: true });
    assert.ok(global.data.options.length > 5);
    const untargeted = await s.call("show_options", { scope: "pane" });
    assert.equal(untargeted.error.code, "invalid_input");
  }),
);

Deno.test(
  "manage tools create, split, rename, select, resize, lay out and title by exact ids",
  lab(async (lab, s) => {
    const session = await s.call("create_session", { session_name: "work", width: 100 });
    assert.match(session.data.session_id, /^\$\d+$/);
    const duplicate = await s.call("create_session", { session_name: "work" });
    assert.equal(duplicate.error.code, "already_exists");
    const window = await s.call("create_window", { session_name: "work", window_name: "logs" });
    assert.equal(window.data.session_id, session.data.session_id);
    const split = await s.call("split_window", {
      pane_id: window.data.pane_id,
      direction: "horizontal",
    });
    assert.equal(split.data.window_id, window.data.window_id);
    assert.equal(
      (await s.call("rename_window", { window_id: window.data.window_id, new_name: "w2" })).ok,
      true,
    );
    assert.equal(
      (await s.call("rename_session", { session_name: "work", new_name: "job" })).ok,
      true,
    );
    assert.equal((await s.call("select_window", { window_id: window.data.window_id })).ok, true);
    assert.equal((await s.call("select_pane", { pane_id: split.data.pane_id })).ok, true);
    assert.equal(
      (await s.call("select_layout", { window_id: window.data.window_id, layout: "even-vertical" }))
        .ok,
      true,
    );
    assert.equal(
      (await s.call("resize_pane", { pane_id: split.data.pane_id, height: 10 })).ok,
      true,
    );
    assert.equal(
      (await s.call("set_pane_title", { pane_id: split.data.pane_id, title: "tests" })).ok,
      true,
    );
    const described = await lab.tmuxCmd(
      "display-message",
      "-p",
      "-t",
      split.data.pane_id,
      "#{session_name}|#{window_name}|#{pane_title}|#{pane_height}|#{pane_active}",
    );
    assert.equal(described, "job|w2|tests|10|1");
    const missing = await s.call("select_window", { window_id: "@99" });
    assert.equal(missing.error.code, "not_found");
    const bothNames = await s.call("create_window", { session_id: "$0", session_name: "job" });
    assert.equal(bothNames.error.code, "invalid_input");
  }),
);

Deno.test(
  "send_keys types literally or by key name; paste_text pastes a block",
  lab(async (lab, s) => {
    const typed = await s.call("send_keys", {
      pane_id: lab.pane,
      keys: "echo 'C-c' typed",
      enter: true,
    });
    assert.equal(typed.ok, true);
    await waitFor(
      "typed output",
      async () => /^C-c typed$/m.test(await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)),
    );
    await waitForPrompt(lab);
    await s.call("send_keys", { pane_id: lab.pane, keys: "sleep 30", enter: true });
    await waitUntilRunning(lab, "sleep");
    await s.call("send_keys", { pane_id: lab.pane, keys: "C-c", literal: false });
    await waitUntilRunning(lab, "zsh");
    await waitForPrompt(lab);
    const pasted = await s.call("paste_text", { pane_id: lab.pane, text: "echo pasted\t✓" });
    assert.equal(pasted.ok, true);
    await waitFor(
      "pasted text",
      async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("echo pasted"),
    );
    const missing = await s.call("send_keys", { pane_id: "%50", keys: "x" });
    assert.equal(missing.error.code, "not_found");
  }),
);

Deno.test(
  "respawn_pane restarts a pane, and refuses to kill the server's own pane",
  () =>
    withLab(async (lab) => {
      const caller = await tmuxEnvironmentFor(lab, lab.pane);
      await withGeneral(lab, { caller }, async (s) => {
        const other = await splitPane(lab, "sleep 60");
        const before = await lab.tmuxCmd("display-message", "-p", "-t", other, "#{pane_pid}");
        const respawned = await s.call("respawn_pane", {
          pane_id: other,
          kill: true,
          command: "sleep 61",
        });
        assert.equal(respawned.ok, true, JSON.stringify(respawned));
        assert.notEqual(
          await lab.tmuxCmd("display-message", "-p", "-t", other, "#{pane_pid}"),
          before,
        );
        const own = await s.call("respawn_pane", { pane_id: lab.pane, kill: true });
        assert.equal(own.error.code, "contains_caller");
      });
    }),
);

Deno.test(
  "set_environment sets a session's variable for processes started later",
  lab(async (lab, s) => {
    const set = await s.call("set_environment", { session_id: "$0", name: "PROBE", value: "v 1" });
    assert.deepEqual(set.data, { target: "$0" });
    assert.equal(await lab.tmuxCmd("show-environment", "-t", "$0", "PROBE"), "PROBE=v 1");
    await s.call("set_environment", { session_id: "$0", name: "PROBE", unset: true });
    await assert.rejects(lab.tmuxCmd("show-environment", "-t", "$0", "PROBE"));
    const nowhere = await s.call("set_environment", { name: "PROBE", value: "x" });
    assert.equal(nowhere.error.code, "invalid_input");
  }),
);

Deno.test(
  "socket_name reaches another tmux server for one call",
  lab(async (lab, s) => {
    const name = `tmux-mcp-other-${randomHex(6)}`;
    const other: TmuxClient = { bin: "tmux", socket: { kind: "name", name } };
    try {
      const created = await s.call("create_session", { socket_name: name, session_name: "far" });
      assert.equal(created.ok, true);
      const far = await s.call("list_sessions", { socket_name: name });
      assert.deepEqual(far.data.sessions.map((x: { session_name: string }) => x.session_name), [
        "far",
      ]);
      const near = await s.call("list_sessions");
      assert.deepEqual(near.data.sessions.map((x: { session_id: string }) => x.session_id), ["$0"]);
      const none = await s.call("list_sessions", { socket_name: `${name}-absent` });
      assert.equal(none.error.code, "no_server");
      assert.equal(await lab.tmuxCmd("display-message", "-p", "#{session_name}"), "0");
    } finally {
      await stopTmuxServer(other);
    }
  }),
);
