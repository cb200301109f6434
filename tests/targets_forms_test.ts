// Every targeted tool reached by each target form it accepts, against real tmux: exact ids
// ($N, @N, %N), exact session names (`alpha` is not `alphabet`, and `alphab`, a prefix of one,
// names nothing), and socket_name, which reaches another tmux server for one call while the
// bound server, which has no such session, answers not_found. An id that does not exist is
// not_found, never some other object.
import assert from "node:assert/strict";
import { type Lab, type Payload, withLab } from "./harness.ts";
import { type GeneralSession, withGeneral } from "./general_session.ts";

type Ids = { session: string; window: string; pane: string; spare: string };
type Form = "session" | "window" | "pane" | "socket";
type Case = [tool: string, form: Form, args: (ids: Ids) => Record<string, unknown>];

const MISSING: Record<Form, Record<string, string>> = {
  session: { session_id: "$999" },
  window: { window_id: "@999" },
  pane: { pane_id: "%999" },
  socket: {},
};

// In order: the ones that change things come after the ones that read them.
const CASES: Case[] = [
  ["list_sessions", "socket", () => ({})],
  ["list_windows", "session", () => ({})],
  ["list_panes", "session", () => ({})],
  ["list_panes", "window", (ids) => ({ window_id: ids.window })],
  ["search_panes", "session", () => ({ pattern: "lab#" })],
  ["show_options", "session", () => ({ scope: "session" })],
  ["show_options", "window", (ids) => ({ scope: "window", window_id: ids.window })],
  ["show_options", "pane", (ids) => ({ scope: "pane", pane_id: ids.pane })],
  ["get_pane_info", "pane", (ids) => ({ pane_id: ids.pane })],
  ["capture_pane", "pane", (ids) => ({ pane_id: ids.pane })],
  ["capture_since", "pane", (ids) => ({ pane_id: ids.pane })],
  ["wait_for_text", "pane", (ids) => ({ pane_id: ids.pane, patterns: ["never"], timeout: 1 })],
  ["run_command", "pane", (ids) => ({ pane_id: ids.pane, command: "true" })],
  ["set_environment", "session", () => ({ name: "TMUX_MCP_FORMS", value: "1" })],
  ["create_window", "session", () => ({ window_name: "forms" })],
  ["rename_window", "window", (ids) => ({ window_id: ids.window, new_name: "renamed" })],
  ["select_window", "window", (ids) => ({ window_id: ids.window })],
  ["select_layout", "window", (ids) => ({ window_id: ids.window, layout: "tiled" })],
  ["split_window", "pane", (ids) => ({ pane_id: ids.pane })],
  ["select_pane", "pane", (ids) => ({ pane_id: ids.spare })],
  ["resize_pane", "pane", (ids) => ({ pane_id: ids.spare, height: 10 })],
  ["set_pane_title", "pane", (ids) => ({ pane_id: ids.spare, title: "forms" })],
  ["send_keys", "pane", (ids) => ({ pane_id: ids.spare, keys: "true", literal: true })],
  ["paste_text", "pane", (ids) => ({ pane_id: ids.spare, text: " x" })],
  ["clear_history", "pane", (ids) => ({ pane_id: ids.spare })],
  ["respawn_pane", "pane", (ids) => ({ pane_id: ids.spare, kill: true })],
  ["kill_pane", "pane", (ids) => ({ pane_id: ids.spare })],
];

function expectCode(payload: Payload, code: string | null, what: string) {
  if (code === null) assert.equal(payload.ok, true, `${what}: ${JSON.stringify(payload)}`);
  else assert.equal(payload.ok ? null : payload.error.code, code, `${what}: expected ${code}`);
}

async function forms(s: GeneralSession, other: Lab, ids: Ids, socket_name: string) {
  for (const [tool, form, argsFor] of CASES) {
    const what = `${tool} by ${form}`;
    const args = { ...argsFor(ids), socket_name };
    if (form === "session") {
      expectCode(
        await s.call(tool, { ...args, session_name: "alphab" }),
        "not_found",
        `${what} alphab`,
      );
      const { socket_name: _, ...bound } = args;
      expectCode(await s.call(tool, { ...bound, session_name: "alpha" }), "not_found", what);
      expectCode(await s.call(tool, { ...args, ...MISSING.session }), "not_found", `${what} $999`);
      expectCode(await s.call(tool, { ...args, session_id: ids.session }), null, `${what} id`);
      const byName = await s.call(tool, { ...args, session_name: "alpha" });
      expectCode(byName, null, `${what} name`);
      if (tool === "list_windows") {
        assert.ok(byName.data.windows.some((w: Payload) => w.window_id === ids.window), what);
      }
      if (tool === "list_panes") {
        assert.ok(byName.data.panes.every((p: Payload) => p.session_id === ids.session), what);
      }
      if (tool === "create_window") assert.equal(byName.data.session_id, ids.session, what);
    } else {
      if (form !== "socket") {
        const missing = { ...args, ...MISSING[form] };
        expectCode(await s.call(tool, missing), "not_found", `${what}: missing id`);
      }
      const result = await s.call(tool, args);
      expectCode(result, null, what);
      if (tool === "list_sessions") {
        const names = result.data.sessions.map((x: Payload) => x.session_name).sort();
        assert.deepEqual(names, ["alpha", "alphabet"]);
      }
      if (tool === "split_window") ids.spare = result.data.pane_id;
    }
  }
  const renamed = await s.call("rename_session", {
    session_name: "alpha",
    new_name: "omega",
    socket_name,
  });
  expectCode(renamed, null, "rename_session by name");
  expectCode(
    await s.call("rename_session", { session_id: ids.session, new_name: "alpha", socket_name }),
    null,
    "rename_session by id",
  );
  expectCode(
    await s.call("kill_session", { session_name: "alphab", socket_name }),
    "not_found",
    "kill_session alphab",
  );
  expectCode(
    await s.call("kill_session", { session_name: "alphabet", socket_name }),
    null,
    "kill_session",
  );
  assert.equal(await other.tmuxCmd("list-sessions", "-F", "#{session_name}"), "alpha");
  expectCode(
    await s.call("kill_window", { window_id: "@999", socket_name }),
    "not_found",
    "kill_window @999",
  );
  const window = await other.tmuxCmd(
    "new-window",
    "-d",
    "-P",
    "-F",
    "#{window_id}",
    "-t",
    ids.session,
  );
  expectCode(await s.call("kill_window", { window_id: window, socket_name }), null, "kill_window");
  expectCode(await s.call("kill_server", { socket_name }), null, "kill_server");
  await assert.rejects(other.tmuxCmd("list-sessions"), "the other server is gone");
}

Deno.test("every targeted tool takes ids, exact session names and socket_name", () =>
  withLab((bound) =>
    withLab((other) =>
      withGeneral(
        bound,
        { env: { LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" } },
        async (s) => {
          await other.tmuxCmd("rename-session", "-t", "$0", "alpha");
          await other.tmuxCmd("new-session", "-d", "-s", "alphabet", "cat");
          const ids: Ids = {
            session: "$0",
            window: await other.tmuxCmd("display-message", "-p", "-t", other.pane, "#{window_id}"),
            pane: other.pane,
            spare: "",
          };
          await forms(s, other, ids, other.socketName);
        },
      )
    )
  ));
