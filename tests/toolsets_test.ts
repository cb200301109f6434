// Which tools a server advertises and accepts, as configured by LIBTMUX_TOOLSETS (or the Python
// peer's LIBTMUX_SAFETY), LIBTMUX_TOOLS, LIBTMUX_EXCLUDE_TOOLS and --enable-tool, which tmux server it talks to, and the promises every
// catalog entry makes (strict schemas, honest annotations, descriptions that route).
import assert from "node:assert/strict";
import { CATALOG, selectTools } from "../lib/server/catalog.ts";
import { parseCommandLine, UsageError } from "../lib/server/config.ts";
import { runDeno, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

function selected(env: Record<string, string>, args: string[] = []): string[] {
  const parsed = parseCommandLine(args, env);
  assert.ok("config" in parsed);
  return [...selectTools(parsed.config)].sort();
}

function inSets(...sets: string[]): string[] {
  return CATALOG.filter((tool) => tool.toolset && sets.includes(tool.toolset)).map((t) => t.name)
    .sort();
}

Deno.test("unset LIBTMUX_TOOLSETS selects inspect, manage and execute, not teardown", () => {
  const tools = selected({});
  assert.deepEqual(tools, inSets("inspect", "manage", "execute"));
  assert.ok(tools.includes("list_panes") && tools.includes("run_command"));
  assert.ok(!tools.includes("kill_server"));
  assert.ok(!tools.includes("tmux_run"));
});

Deno.test("an empty LIBTMUX_TOOLSETS selects no set; LIBTMUX_TOOLS adds exact names", () => {
  assert.deepEqual(selected({ LIBTMUX_TOOLSETS: "" }), []);
  assert.deepEqual(selected({ LIBTMUX_TOOLSETS: "", LIBTMUX_TOOLS: "list_panes, kill_pane" }), [
    "kill_pane",
    "list_panes",
  ]);
});

Deno.test("named sets select exactly their tools", () => {
  assert.deepEqual(selected({ LIBTMUX_TOOLSETS: "teardown" }), inSets("teardown"));
  assert.deepEqual(
    selected({ LIBTMUX_TOOLSETS: "inspect,teardown" }),
    inSets("inspect", "teardown"),
  );
});

Deno.test("LIBTMUX_EXCLUDE_TOOLS wins over sets, LIBTMUX_TOOLS and --enable-tool", () => {
  const tools = selected(
    { LIBTMUX_TOOLS: "kill_pane", LIBTMUX_EXCLUDE_TOOLS: "kill_pane,run_command,capture_pane" },
    ["--enable-tool", "run_command"],
  );
  for (const name of ["kill_pane", "run_command", "capture_pane"]) {
    assert.ok(!tools.includes(name), name);
  }
  assert.ok(tools.includes("list_panes"));
});

Deno.test("tmux_run is in no set and is turned on only by its exact name", () => {
  assert.ok(
    !selected({ LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" }).includes("tmux_run"),
  );
  assert.ok(selected({}, ["--enable-tool", "tmux_run"]).includes("tmux_run"));
  assert.ok(selected({ LIBTMUX_TOOLS: "tmux_run" }).includes("tmux_run"));
  assert.throws(() => selected({ LIBTMUX_TOOLS: "tmux" }), UsageError);
});

Deno.test("an unknown set or tool name fails with a message naming the word", () => {
  const cases: [Record<string, string>, string[], string][] = [
    [{ LIBTMUX_TOOLSETS: "inspect,bogus_set" }, [], "bogus_set"],
    [{ LIBTMUX_TOOLS: "list_pane" }, [], "list_pane"],
    [{ LIBTMUX_EXCLUDE_TOOLS: "kill_everything" }, [], "kill_everything"],
    [{}, ["--enable-tool", "no_such_tool"], "no_such_tool"],
  ];
  for (const [env, args, word] of cases) {
    assert.throws(() => selected(env, args), (error: Error) => {
      assert.ok(error instanceof UsageError);
      assert.ok(error.message.includes(word), error.message);
      return true;
    });
  }
});

Deno.test("LIBTMUX_SAFETY maps to toolsets when LIBTMUX_TOOLSETS is unset", () => {
  assert.deepEqual(selected({ LIBTMUX_SAFETY: "readonly" }), inSets("inspect"));
  assert.ok(!selected({ LIBTMUX_SAFETY: "readonly" }).includes("send_keys"));
  assert.deepEqual(
    selected({ LIBTMUX_SAFETY: "mutating" }),
    inSets("inspect", "manage", "execute"),
  );
  assert.deepEqual(
    selected({ LIBTMUX_SAFETY: "Destructive" }),
    inSets("inspect", "manage", "execute", "teardown"),
  );
  assert.deepEqual(
    selected({ LIBTMUX_SAFETY: "destructive", LIBTMUX_TOOLSETS: "inspect" }),
    inSets("inspect"),
    "LIBTMUX_TOOLSETS wins",
  );
  assert.deepEqual(selected({ LIBTMUX_SAFETY: "" }), selected({}), "empty is unset");
  assert.deepEqual(
    selected({ LIBTMUX_SAFETY: "readonly", LIBTMUX_TOOLS: "send_keys" }),
    [...inSets("inspect"), "send_keys"].sort(),
  );
});

Deno.test("a word not shaped like a name is refused without being shown", () => {
  const secret = "ghp_S3cr3tTokenValue";
  for (const [env, args] of [[{ LIBTMUX_TOOLS: secret }, []], [{}, ["--enable-tool", secret]]]) {
    assert.throws(() => selected(env as Record<string, string>, args as string[]), (error) => {
      assert.ok(error instanceof UsageError);
      assert.ok(!error.message.includes(secret), error.message);
      assert.match(error.message, /LIBTMUX_TOOLS|--enable-tool/);
      return true;
    });
  }
});

function startupFailure(env: Record<string, string>, args: string[] = []) {
  return runDeno(["run", "-A", "--quiet", MAIN, ...args], env);
}

Deno.test("startup with an unknown toolset exits 2 with one stderr line naming it", async () => {
  const result = await startupFailure({ LIBTMUX_TOOLSETS: "inspect,frobnicate" });
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0], /frobnicate/);
});

Deno.test("startup with an unknown tool name exits 2 with one stderr line naming it", async () => {
  const result = await startupFailure({}, ["--enable-tool", "kill_universe"]);
  assert.equal(result.code, 2);
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0], /kill_universe/);
});

Deno.test("startup with an unknown LIBTMUX_SAFETY exits 2 with one line naming the variable", async () => {
  const result = await startupFailure({ LIBTMUX_SAFETY: "paranoid-xyz" });
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0], /LIBTMUX_SAFETY must be readonly, mutating or destructive/);
  assert.ok(!lines[0].includes("paranoid-xyz"));
});

Deno.test("a wait ceiling outside 1..120 or malformed fails startup with exit 2", async () => {
  for (const value of ["0", "121", "ten"]) {
    const result = await startupFailure({ LIBTMUX_MCP_WAIT_MAX_SECONDS: value });
    assert.equal(result.code, 2, value);
    assert.match(result.stderr, /LIBTMUX_MCP_WAIT_MAX_SECONDS/);
  }
  const parsed = parseCommandLine([], { LIBTMUX_MCP_WAIT_MAX_SECONDS: "120" });
  assert.ok("config" in parsed && parsed.config.waitMaxSeconds === 120);
});

Deno.test("the socket comes from LIBTMUX_SOCKET unless --socket-name or --socket override it", () => {
  const config = (env: Record<string, string>, args: string[]) => {
    const parsed = parseCommandLine(args, env);
    assert.ok("config" in parsed);
    return parsed.config;
  };
  assert.deepEqual(config({}, []).socket, { kind: "default" });
  assert.deepEqual(config({ LIBTMUX_SOCKET: "work" }, []).socket, { kind: "name", name: "work" });
  assert.deepEqual(
    config({ LIBTMUX_SOCKET: "work" }, ["--socket-name", "other"]).socket,
    { kind: "name", name: "other" },
  );
  assert.deepEqual(
    config({ LIBTMUX_SOCKET: "work" }, ["--socket", "/tmp/s"]).socket,
    { kind: "path", path: "/tmp/s" },
  );
  assert.throws(() => config({}, ["--socket", "/tmp/s", "--socket-name", "x"]), UsageError);
  assert.equal(config({ LIBTMUX_TMUX_BIN: "/opt/tmux" }, []).tmuxBin, "/opt/tmux");
  assert.equal(config({ LIBTMUX_TMUX_BIN: "/opt/tmux" }, ["--tmux", "/x/tmux"]).tmuxBin, "/x/tmux");
});

Deno.test("every catalog tool has strict schemas, honest annotations and a routing description", () => {
  const names = CATALOG.map((tool) => tool.name);
  for (const tool of CATALOG) {
    assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.equal(tool.inputSchema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.ok(Array.isArray(tool.outputSchema.oneOf), `${tool.name} output is success|failure`);
    if (tool.toolset === "inspect") assert.equal(tool.annotations.readOnlyHint, true, tool.name);
    else assert.equal(tool.annotations.readOnlyHint, false, tool.name);
    if (tool.toolset === "teardown") {
      assert.equal(tool.annotations.destructiveHint, true, tool.name);
    }
    const siblings = names.filter((name) => name !== tool.name && tool.description.includes(name));
    assert.ok(siblings.length > 0, `${tool.name}'s description routes to no sibling`);
  }
  // Every tool that reads or changes one tmux server can be pointed at another; list_servers
  // lists them all, and tmux_capabilities describes this MCP server.
  const targeted = CATALOG.filter((tool) =>
    tool.toolset !== null && !["tmux_capabilities", "list_servers"].includes(tool.name)
  );
  for (const tool of targeted) {
    const properties = tool.inputSchema.properties as Record<string, unknown>;
    assert.ok("socket_name" in properties, `${tool.name} takes socket_name`);
  }
});

Deno.test("an unselected tool is absent from tools/list and refused without effect", () =>
  withLab((lab) =>
    withGeneral(lab, { env: { LIBTMUX_TOOLSETS: "inspect" } }, async (s) => {
      const listed = (await s.client.listTools()).tools.map((tool: { name: string }) => tool.name)
        .sort();
      assert.deepEqual(listed, inSets("inspect"));
      const refused = await s.call("kill_server");
      assert.equal(refused.ok, false);
      assert.equal(refused.error.code, "policy_denied");
      assert.equal(await lab.tmuxCmd("display-message", "-p", "#{pane_id}"), lab.pane);
    })
  ));
