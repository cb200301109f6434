// The program as a process: flags answered without tmux, usage errors as exit 2 with one line
// that never echoes a value (an unknown set or tool name, the user's own word, is named: see
// tests/toolsets_test.ts), startup failures as exit 1, stdout reserved for MCP frames, and
// `enroll` failing in one line when its private directory cannot be used.
import assert from "node:assert/strict";
import { Client, StdioClientTransport } from "./test_deps.ts";
import { clientEnvironment, runDeno, withLab } from "./harness.ts";

const runMain = (args: string[], env: Record<string, string> = {}) =>
  runDeno(["run", "--allow-all", MAIN, ...args], env);

const MAIN = new URL("../main.ts", import.meta.url).pathname;

Deno.test("--help and --version answer without touching tmux", async () => {
  for (const flag of ["--help", "--version"]) {
    const result = await runMain([flag, "--tmux", "/nonexistent/tmux"]);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /tmux-mcp \d+\.\d+\.\d+/);
  }
});

Deno.test("usage errors exit 2 with one line that does not echo the value", async () => {
  const secret = "s3cr3t-value-xyz";
  const cases = [
    ["--run-timeout", secret],
    ["--enroll-pane", secret],
    ["--socket", "/tmp/a", "--socket-name", secret],
    ["--no-such-flag", secret],
    ["--enrollment-timeout", "301"],
    ["--enroll-pane", "%1=/tmp/never-written"],
  ];
  for (const args of cases) {
    const result = await runMain(args);
    assert.equal(result.code, 2, `${args[0]}: ${result.stderr}`);
    assert.equal(result.stderr.trim().split("\n").length, 1);
    assert.ok(!result.stderr.includes(secret));
    assert.equal(result.stdout, "");
  }
});

Deno.test("a bad TMUX_MCP_PROCESS_FACTS exits 2 with one line naming the variable", async () => {
  const secret = "s3cr3t-value-xyz";
  for (const args of [[], ["enroll"], ["smoke"]]) {
    const result = await runMain(args, { TMUX_MCP_PROCESS_FACTS: secret });
    assert.equal(result.code, 2, `${args}: ${result.stderr}`);
    assert.equal(result.stdout, "");
    assert.deepEqual(result.stderr.trimEnd().split("\n"), [
      "tmux-mcp: TMUX_MCP_PROCESS_FACTS must be proc or portable, or unset",
    ]);
  }
});

Deno.test("a setup path that already exists fails startup with exit 1", () =>
  withLab(async (lab) => {
    const taken = `${lab.dir}/taken`;
    await Deno.writeTextFile(taken, "theirs");
    const result = await runMain([
      "--socket-name",
      lab.socketName,
      "--enable-tool",
      "tmux_run",
      "--enroll-pane",
      `%0=${taken}`,
    ]);
    assert.equal(result.code, 1);
    // The path the person typed is named (it is no secret); the file's content never is.
    assert.ok(
      result.stderr.includes(
        `an --enroll-pane file was not created at ${taken}: something (a file, a directory or a ` +
          "symlink) is already there, and it is never overwritten; remove it or give another path",
      ),
      result.stderr,
    );
    assert.equal(await Deno.readTextFile(taken), "theirs");
  }));

Deno.test("over real stdio, stdout carries only MCP frames and stderr one startup line", () =>
  withLab(async (lab) => {
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "--allow-all", MAIN, "--socket-name", lab.socketName],
      env: clientEnvironment(),
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
    const client = new Client({ name: "cli-test", version: "1" });
    await client.connect(transport);
    try {
      const result = await client.callTool({ name: "tmux_capabilities", arguments: {} });
      const payload = JSON.parse((result.content as { text: string }[])[0].text);
      assert.equal(payload.ok, true);
      assert.equal(payload.data.tmux.running, true);
    } finally {
      await client.close();
    }
    assert.match(stderr, /^tmux-mcp: bound to .*; tools: .*tmux_capabilities/);
  }));

Deno.test("enroll names the private directory it cannot use, or where it searched, in one line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-enroll-" });
  try {
    const notADirectory = `${dir}/file`;
    await Deno.writeTextFile(notADirectory, "");
    await Deno.mkdir(`${dir}/open/tmux-mcp`, { recursive: true, mode: 0o755 });
    await Deno.chmod(`${dir}/open/tmux-mcp`, 0o755);
    const cases = [
      [
        notADirectory,
        `the private directory ${notADirectory}/tmux-mcp (under XDG_RUNTIME_DIR) ` +
        "could not be made, as the directory it goes in does not exist",
      ],
      // Not private, so never used: a server would have gone beside it, and enroll looks there.
      [`${dir}/open`, `is bound to this tmux server (searched ${dir}/open/tmux-mcp-server-*)`],
    ];
    for (const [runtime, expected] of cases) {
      const result = await runMain(["enroll"], {
        TMUX: "/tmp/tmux-0/default,1,0",
        TMUX_PANE: "%0",
        XDG_RUNTIME_DIR: runtime,
      });
      assert.equal(result.code, 1, result.stderr);
      assert.equal(result.stdout, "false\n", "eval runs `false`: the eval line fails too");
      const lines = result.stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, result.stderr);
      assert.ok(lines[0].includes(expected), lines[0]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
