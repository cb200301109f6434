// Startup configuration without starting anything: flags and LIBTMUX_* variables become one
// Config, and every bad value is a UsageError (main.ts turns it into exit 2; tests/cli_test.ts
// checks that as a process) whose message names the flag or variable and never the value.
import assert from "node:assert/strict";
import {
  type Config,
  DEFAULT_ENROLLMENT_SECONDS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_RUN_TIMEOUT_SECONDS,
  DEFAULT_RUN_TIMEOUT_WITH_PROGRESS_SECONDS,
  DEFAULT_WAIT_MAX_SECONDS,
  parseCommandLine,
  UsageError,
} from "./config.ts";

/** A value no message may contain: it stands for a path or a secret pasted by mistake. */
const SECRET = "s3cr3t-V4LUE";

function configOf(args: string[], env: Record<string, string> = {}): Config {
  const parsed = parseCommandLine(args, env);
  assert.ok("config" in parsed, "expected a configuration");
  return parsed.config;
}

/** Asserts a UsageError that names `names` and does not contain the secret value. */
function assertUsage(args: string[], env: Record<string, string>, ...names: string[]) {
  let message = "";
  assert.throws(() => parseCommandLine(args, env), (error: unknown) => {
    assert.ok(error instanceof UsageError, `not a UsageError: ${error}`);
    message = error.message;
    return true;
  });
  assert.ok(!message.includes(SECRET), `the message echoes the value: ${message}`);
  assert.equal(message.split("\n").length, 1);
  for (const name of names) assert.ok(message.includes(name), `"${message}" lacks ${name}`);
}

Deno.test("no flags and no environment: serve, tmux's default socket, documented defaults", () => {
  const parsed = parseCommandLine([], {});
  assert.ok("config" in parsed);
  assert.equal(parsed.command, "serve");
  assert.deepEqual(parsed.rest, []);
  assert.deepEqual(parsed.config, {
    socket: { kind: "default" },
    tmuxBin: "tmux",
    enableTools: [],
    toolsets: null,
    extraTools: [],
    excludeTools: [],
    enrollPanes: [],
    enrollmentSeconds: DEFAULT_ENROLLMENT_SECONDS,
    runTimeoutSeconds: DEFAULT_RUN_TIMEOUT_SECONDS,
    runTimeoutWithProgressSeconds: DEFAULT_RUN_TIMEOUT_WITH_PROGRESS_SECONDS,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    waitMaxSeconds: DEFAULT_WAIT_MAX_SECONDS,
    controlMode: "auto",
    journal: {
      directory: null,
      offReason: "off: neither XDG_STATE_HOME nor HOME names a directory to keep it in",
      keepScripts: false,
    },
  });
  assert.deepEqual(
    [
      DEFAULT_ENROLLMENT_SECONDS,
      DEFAULT_RUN_TIMEOUT_SECONDS,
      DEFAULT_RUN_TIMEOUT_WITH_PROGRESS_SECONDS,
      DEFAULT_WAIT_MAX_SECONDS,
    ],
    [60, 30, 600, 30],
  );
  assert.equal(DEFAULT_MAX_RESPONSE_BYTES, 4 * 1024 * 1024);
});

Deno.test("the journal is in the state directory unless --no-journal; scripts only when asked", () => {
  const home = { HOME: "/home/p" };
  assert.deepEqual(configOf([], home).journal, {
    directory: "/home/p/.local/state/tmux-mcp",
    offReason: null,
    keepScripts: false,
  });
  assert.deepEqual(configOf(["--journal-scripts"], { ...home, XDG_STATE_HOME: "/s" }).journal, {
    directory: "/s/tmux-mcp",
    offReason: null,
    keepScripts: true,
  });
  assert.deepEqual(configOf(["--no-journal"], home).journal, {
    directory: null,
    offReason: "off by --no-journal",
    keepScripts: false,
  });
  assertUsage(["--no-journal", "--journal-scripts"], home, "--no-journal", "--journal-scripts");
});

Deno.test("the socket comes from --socket, --socket-name or LIBTMUX_SOCKET, flags first", () => {
  assert.deepEqual(configOf(["--socket", "/tmp/s"]).socket, { kind: "path", path: "/tmp/s" });
  assert.deepEqual(configOf(["--socket-name", "lab"]).socket, { kind: "name", name: "lab" });
  assert.deepEqual(configOf([], { LIBTMUX_SOCKET: "env" }).socket, { kind: "name", name: "env" });
  assert.deepEqual(configOf(["--socket-name", "flag"], { LIBTMUX_SOCKET: "env" }).socket, {
    kind: "name",
    name: "flag",
  });
  assert.deepEqual(configOf(["--socket", "/p"], { LIBTMUX_SOCKET: "env" }).socket, {
    kind: "path",
    path: "/p",
  });
  assert.deepEqual(configOf([], { LIBTMUX_SOCKET: "" }).socket, { kind: "default" });
});

Deno.test("bad socket choices are usage errors that do not echo the value", () => {
  assertUsage(["--socket", SECRET, "--socket-name", SECRET], {}, "--socket", "--socket-name");
  assertUsage(["--socket", ""], {}, "--socket");
  assertUsage(["--socket-name", `a/${SECRET}`], {}, "socket name");
  assertUsage(["--socket-name", ""], {}, "socket name");
  assertUsage([], { LIBTMUX_SOCKET: `/${SECRET}` }, "socket name");
});

Deno.test("the tmux binary comes from --tmux, then LIBTMUX_TMUX_BIN, then PATH", () => {
  assert.equal(configOf(["--tmux", "/opt/tmux"], { LIBTMUX_TMUX_BIN: "/e" }).tmuxBin, "/opt/tmux");
  assert.equal(configOf([], { LIBTMUX_TMUX_BIN: "/e" }).tmuxBin, "/e");
});

Deno.test("TMUX_MCP_PROCESS_FACTS is proc, portable or unset; anything else is named", () => {
  for (const value of ["proc", "portable", ""]) configOf([], { TMUX_MCP_PROCESS_FACTS: value });
  assertUsage([], { TMUX_MCP_PROCESS_FACTS: SECRET }, "TMUX_MCP_PROCESS_FACTS");
  assertUsage(["enroll"], { TMUX_MCP_PROCESS_FACTS: "Proc" }, "TMUX_MCP_PROCESS_FACTS");
});

Deno.test("tool lists are comma-separated, trimmed, empty words dropped", () => {
  const config = configOf(["--enable-tool", "tmux_run", "--enable-tool", "kill_pane"], {
    LIBTMUX_TOOLSETS: " inspect , teardown ,,",
    LIBTMUX_TOOLS: "send_keys,",
    LIBTMUX_EXCLUDE_TOOLS: " capture_pane ",
  });
  assert.deepEqual(config.toolsets, ["inspect", "teardown"]);
  assert.deepEqual(config.enableTools, ["tmux_run", "kill_pane"]);
  assert.deepEqual(config.extraTools, ["send_keys"]);
  assert.deepEqual(config.excludeTools, ["capture_pane"]);
});

Deno.test("LIBTMUX_TOOLSETS unset means the defaults; set but empty means none", () => {
  assert.equal(configOf([], {}).toolsets, null);
  assert.deepEqual(configOf([], { LIBTMUX_TOOLSETS: "" }).toolsets, []);
  assert.deepEqual(configOf([], { LIBTMUX_TOOLSETS: " , " }).toolsets, []);
});

Deno.test("--enroll-pane takes up to eight distinct %ID=FILE pairs", () => {
  assert.deepEqual(
    configOf(["--enroll-pane", "%3=/tmp/a=b", "--enroll-pane", "%12=x"]).enrollPanes,
    [
      { paneId: "%3", file: "/tmp/a=b" },
      { paneId: "%12", file: "x" },
    ],
  );
  const eight = Array.from({ length: 8 }, (_, i) => ["--enroll-pane", `%${i}=f${i}`]).flat();
  assert.equal(configOf(eight).enrollPanes.length, 8);
  const nine = Array.from({ length: 9 }, (_, i) => ["--enroll-pane", `%${i}=f${i}`]).flat();
  assertUsage(nine, {}, "--enroll-pane", "8");
});

Deno.test("a malformed or repeated --enroll-pane is a usage error without the value", () => {
  for (const spec of [SECRET, `3=${SECRET}`, `%x=${SECRET}`, `%3=`, `%3${SECRET}`]) {
    assertUsage(["--enroll-pane", spec], {}, "--enroll-pane");
  }
  assertUsage(["--enroll-pane", `%1=${SECRET}`, "--enroll-pane", `%1=b${SECRET}`], {}, "same pane");
  assertUsage(["--enroll-pane", `%1=${SECRET}`, "--enroll-pane", `%2=${SECRET}`], {}, "same file");
});

const BOUNDED: { name: string; min: number; max: number; read: (c: Config) => number }[] = [
  {
    name: "--enrollment-timeout",
    min: 1,
    max: 300,
    read: (c) => c.enrollmentSeconds,
  },
  { name: "--run-timeout", min: 1, max: 3600, read: (c) => c.runTimeoutSeconds },
  {
    name: "--run-timeout-with-progress",
    min: 1,
    max: 3600,
    read: (c) => c.runTimeoutWithProgressSeconds,
  },
  {
    name: "--max-response-bytes",
    min: 4096,
    max: 1024 * 1024 * 1024,
    read: (c) => c.maxResponseBytes,
  },
  {
    name: "LIBTMUX_MCP_WAIT_MAX_SECONDS",
    min: 1,
    max: 120,
    read: (c) => c.waitMaxSeconds,
  },
];

/** `--flag=VALUE` rather than two words: parseArgs reads a separate "-1" as another option. */
function withValue(name: string, value: string): [string[], Record<string, string>] {
  return name.startsWith("--") ? [[`${name}=${value}`], {}] : [[], { [name]: value }];
}

for (const { name, min, max, read } of BOUNDED) {
  Deno.test(`${name} accepts whole numbers from ${min} to ${max}`, () => {
    for (const value of [min, max]) {
      assert.equal(read(configOf(...withValue(name, `${value}`))), value);
    }
    assert.equal(read(configOf(...withValue(name, ` ${min} `))), min);
  });

  Deno.test(`${name} out of range or malformed is a usage error naming it, not the value`, () => {
    for (
      const value of [`${min - 1}`, `${max + 1}`, "-1", "1.5", "1e3", "0x10", "", "ten", SECRET]
    ) {
      const [args, env] = withValue(name, value);
      let message = "";
      assert.throws(() => parseCommandLine(args, env), (error: unknown) => {
        assert.ok(error instanceof UsageError);
        message = error.message;
        return true;
      }, `${name}=${value}`);
      assert.ok(message.includes(name), message);
      assert.ok(message.includes(`${min} to ${max}`), message);
      if (value.length > 2) assert.ok(!message.includes(value), message);
    }
  });
}

Deno.test("an unknown or malformed option is a usage error that does not echo it", () => {
  assertUsage([`--${SECRET}`], {});
  assertUsage(["--run-timeout"], {});
  assertUsage(["--help=x"], {});
});

Deno.test("--help, -h and --version answer before anything is validated", () => {
  assert.deepEqual(parseCommandLine(["--help"], {}), { command: "help" });
  assert.deepEqual(parseCommandLine(["-h", "--run-timeout", "0"], {}), { command: "help" });
  assert.deepEqual(parseCommandLine(["--version"], { LIBTMUX_SOCKET: "/bad" }), {
    command: "version",
  });
});

Deno.test("the first positional is the command, the rest and --script/--server travel along", () => {
  const parsed = parseCommandLine(["smoke", "extra", "--script", "make -v", "--server", "42"], {});
  assert.ok("config" in parsed);
  assert.equal(parsed.command, "smoke");
  assert.deepEqual(parsed.rest, ["extra"]);
  assert.equal(parsed.script, "make -v");
  assert.equal(parsed.server, "42");
});

Deno.test("--control-mode and TMUX_MCP_CONTROL_MODE choose control mode; the flag wins", () => {
  assert.equal(configOf([]).controlMode, "auto");
  assert.equal(configOf([], { TMUX_MCP_CONTROL_MODE: "never" }).controlMode, "never");
  assert.equal(
    configOf(["--control-mode", "always"], { TMUX_MCP_CONTROL_MODE: "never" }).controlMode,
    "always",
  );
  assertUsage(["--control-mode", SECRET], {}, "--control-mode", "auto, always or never");
  assertUsage([], { TMUX_MCP_CONTROL_MODE: SECRET }, "TMUX_MCP_CONTROL_MODE");
});
