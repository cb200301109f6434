// Every tool correct in any locale: the server runs as MCP clients start it (its own process, a
// bare environment) with LANG unset, LANG=C, LC_ALL=POSIX or a UTF-8 locale, and non-ASCII
// session names, window names and pane titles go through create, rename and list unchanged. A
// tmux client without -u would print them (and the tab separators) as `_`.
import assert from "node:assert/strict";
import { type Payload, withLab } from "./harness.ts";
import { withStdioServer } from "./stdio_server.ts";
import { randomHex } from "../lib/util/ids.ts";
import { stopTmuxServer } from "../lib/cli/private_lab.ts";

const LOCALES: [string, Record<string, string>][] = [
  ["LANG unset", {}],
  ["LANG=C", { LANG: "C" }],
  ["LC_ALL=POSIX", { LC_ALL: "POSIX" }],
  ["LANG=C.UTF-8", { LANG: "C.UTF-8" }],
];

const SESSION = "Zürich 日本 ☕";
const RENAMED = "Genève – 東京";
const WINDOW = "fenêtre ✓";
const RENAMED_WINDOW = "ventana ñ 🪟";
const TITLE = "titre ✓ 日本 (ça va)";

type Call = (name: string, args?: Record<string, unknown>) => Promise<Payload>;

async function ok(call: Call, name: string, args: Record<string, unknown>) {
  const payload = await call(name, args);
  assert.equal(payload.ok, true, `${name}: ${JSON.stringify(payload)}`);
  return payload.data;
}

/** Creates, renames and lists non-ASCII names on the server `socket` reaches, exactly. */
async function roundTrip(call: Call, socket: Record<string, string>) {
  const created = await ok(call, "create_session", {
    session_name: SESSION,
    window_name: WINDOW,
    ...socket,
  });
  assert.equal(created.session_name, SESSION);
  assert.match(created.session_id, /^\$\d+$/);
  assert.match(created.window_id, /^@\d+$/);
  assert.match(created.pane_id, /^%\d+$/);

  const sessions = (await ok(call, "list_sessions", socket)).sessions;
  assert.deepEqual(
    sessions.filter((s: Payload) => s.session_id === created.session_id).map((s: Payload) =>
      s.session_name
    ),
    [SESSION],
  );
  const windows = (await ok(call, "list_windows", { session_name: SESSION, ...socket })).windows;
  assert.deepEqual(windows.map((w: Payload) => [w.window_id, w.window_name]), [
    [created.window_id, WINDOW],
  ]);

  await ok(call, "set_pane_title", { pane_id: created.pane_id, title: TITLE, ...socket });
  const panes = (await ok(call, "list_panes", { session_name: SESSION, ...socket })).panes;
  assert.deepEqual(panes.map((p: Payload) => [p.pane_id, p.title]), [[created.pane_id, TITLE]]);

  await ok(call, "rename_session", { session_name: SESSION, new_name: RENAMED, ...socket });
  await ok(call, "rename_window", {
    window_id: created.window_id,
    new_name: RENAMED_WINDOW,
    ...socket,
  });
  const renamed = (await ok(call, "list_sessions", socket)).sessions.find((s: Payload) =>
    s.session_id === created.session_id
  );
  assert.equal(renamed.session_name, RENAMED);
  const renamedWindows = (await ok(call, "list_windows", { session_name: RENAMED, ...socket }))
    .windows;
  assert.deepEqual(renamedWindows.map((w: Payload) => w.window_name), [RENAMED_WINDOW]);
  const panesById = (await ok(call, "list_panes", { session_id: created.session_id, ...socket }))
    .panes;
  assert.deepEqual(panesById.map((p: Payload) => p.session_id), [created.session_id]);
  await ok(call, "show_options", { scope: "session", session_name: RENAMED, ...socket });
  const info = await ok(call, "get_pane_info", { pane_id: created.pane_id, ...socket });
  assert.deepEqual([info.pane.pane_id, info.pane.title], [created.pane_id, TITLE]);
  return created;
}

for (const [label, locale] of LOCALES) {
  Deno.test(`with ${label}, non-ASCII names and titles round-trip through the tools`, () =>
    withLab((lab) =>
      withStdioServer(
        { env: locale, args: ["--socket-name", lab.socketName] },
        async ({ call }) => {
          await roundTrip(call, {});
        },
      )
    ));
}

Deno.test("a tmux server started by the MCP server itself, with no locale, keeps names exact", () =>
  withLab((lab) =>
    withStdioServer({ args: ["--socket-name", lab.socketName] }, async ({ call }) => {
      const socket_name = `tmux-mcp-test-bare-${randomHex(4)}`;
      try {
        await roundTrip(call, { socket_name });
      } finally {
        await stopTmuxServer({ bin: "tmux", socket: { kind: "name", name: socket_name } });
      }
    })
  ));
