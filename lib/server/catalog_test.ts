// Tool selection without a server: the default sets, LIBTMUX_TOOLSETS / LIBTMUX_TOOLS /
// --enable-tool / LIBTMUX_EXCLUDE_TOOLS in that order, tmux_run only by its exact name, and
// unknown words refused by name (they are the user's own configuration, not secrets).
import assert from "node:assert/strict";
import { CATALOG, selectTools, TOOLSETS } from "./catalog.ts";
import { parseCommandLine, UsageError } from "./config.ts";

/** The README's "Toolsets and tools" table. */
const README_TOOLSETS: Record<string, string[]> = {
  inspect: [
    "tmux_capabilities",
    "list_sessions",
    "list_windows",
    "list_panes",
    "get_pane_info",
    "capture_pane",
    "capture_since",
    "wait_for_text",
    "wait_for_command",
    "search_panes",
    "show_options",
  ],
  manage: [
    "create_session",
    "create_window",
    "split_window",
    "rename_session",
    "rename_window",
    "select_window",
    "select_pane",
    "resize_pane",
    "select_layout",
    "set_pane_title",
  ],
  execute: ["send_keys", "paste_text", "run_command", "respawn_pane", "set_environment"],
  teardown: ["kill_pane", "kill_window", "kill_session", "kill_server", "clear_history"],
};

function select(env: Record<string, string>, flags: string[] = []): string[] {
  const parsed = parseCommandLine(flags, env);
  assert.ok("config" in parsed);
  return [...selectTools(parsed.config)].sort();
}

function names(...sets: string[]): string[] {
  return sets.flatMap((set) => README_TOOLSETS[set]).sort();
}

function assertRefused(env: Record<string, string>, word: string, flags: string[] = []) {
  const parsed = parseCommandLine(flags, env);
  assert.ok("config" in parsed);
  assert.throws(
    () => selectTools(parsed.config),
    (error: unknown) => error instanceof UsageError && error.message.includes(word),
  );
}

Deno.test("every catalog tool has a unique name and sits in the README's toolset", () => {
  const seen = new Set(CATALOG.map((tool) => tool.name));
  assert.equal(seen.size, CATALOG.length);
  assert.deepEqual(TOOLSETS, ["inspect", "manage", "execute", "teardown"]);
  for (const set of TOOLSETS) {
    assert.deepEqual(
      CATALOG.filter((tool) => tool.toolset === set).map((tool) => tool.name).sort(),
      names(set),
      set,
    );
  }
  assert.deepEqual(CATALOG.filter((tool) => tool.toolset === null).map((t) => t.name), [
    "tmux_run",
  ]);
});

Deno.test("unset LIBTMUX_TOOLSETS turns on inspect, manage and execute", () => {
  assert.deepEqual(select({}), names("inspect", "manage", "execute"));
});

Deno.test("LIBTMUX_TOOLSETS set but empty turns every tool off", () => {
  assert.deepEqual(select({ LIBTMUX_TOOLSETS: "" }), []);
});

Deno.test("LIBTMUX_TOOLSETS names exactly the sets in force", () => {
  assert.deepEqual(select({ LIBTMUX_TOOLSETS: "teardown" }), names("teardown"));
  assert.deepEqual(
    select({ LIBTMUX_TOOLSETS: "inspect,teardown" }),
    names("inspect", "teardown"),
  );
});

Deno.test("tmux_run is in no set: only LIBTMUX_TOOLS or --enable-tool turns it on", () => {
  const all = "inspect,manage,execute,teardown";
  assert.ok(!select({ LIBTMUX_TOOLSETS: all }).includes("tmux_run"));
  assert.deepEqual(select({ LIBTMUX_TOOLSETS: "" }, ["--enable-tool", "tmux_run"]), ["tmux_run"]);
  assert.deepEqual(select({ LIBTMUX_TOOLSETS: "", LIBTMUX_TOOLS: "tmux_run" }), ["tmux_run"]);
});

Deno.test("LIBTMUX_TOOLS adds single tools to the sets in force", () => {
  assert.deepEqual(
    select({ LIBTMUX_TOOLSETS: "inspect", LIBTMUX_TOOLS: "kill_pane,send_keys" }),
    [...names("inspect"), "kill_pane", "send_keys"].sort(),
  );
});

Deno.test("LIBTMUX_EXCLUDE_TOOLS removes last, even a tool added by name", () => {
  assert.deepEqual(
    select(
      {
        LIBTMUX_TOOLSETS: "execute",
        LIBTMUX_TOOLS: "kill_pane",
        LIBTMUX_EXCLUDE_TOOLS: "send_keys,kill_pane,tmux_run",
      },
      ["--enable-tool", "tmux_run"],
    ),
    names("execute").filter((name) => name !== "send_keys"),
  );
});

Deno.test("an unknown toolset or tool name is refused, naming where it came from and the word", () => {
  assertRefused(
    { LIBTMUX_TOOLSETS: "inspect,everything" },
    "LIBTMUX_TOOLSETS names no toolset: everything",
  );
  assertRefused({ LIBTMUX_TOOLS: "capture" }, "LIBTMUX_TOOLS names no tool: capture");
  assertRefused({}, "--enable-tool names no tool: tmux_runner", ["--enable-tool", "tmux_runner"]);
});

Deno.test("a word not shaped like a name is refused without being shown", () => {
  for (
    const [env, flags, source] of [
      [{ LIBTMUX_TOOLSETS: "Inspect" }, [], "LIBTMUX_TOOLSETS"],
      [{ LIBTMUX_EXCLUDE_TOOLS: "kill-pane" }, [], "LIBTMUX_EXCLUDE_TOOLS"],
      [{}, ["--enable-tool", "tmux-run"], "--enable-tool"],
    ] as const
  ) {
    const parsed = parseCommandLine([...flags], env);
    assert.ok("config" in parsed);
    assert.throws(
      () => selectTools(parsed.config),
      (error: unknown) =>
        error instanceof UsageError && error.message.startsWith(source) &&
        error.message.includes("not shown") &&
        !/Inspect|kill-pane|tmux-run/.test(error.message),
    );
  }
});
