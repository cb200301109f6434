// The ways people get the program: the demo on a fresh machine, the CI smoke check, one
// bundled file, a `deno run` of a URL, and a compiled binary (when the runtime for compiling
// can be had here). Each runs a real enrollment and tmux_run; none leaves anything behind.
import assert from "node:assert/strict";
import { runDeno as run } from "./harness.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;

async function labLeftovers(): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(Deno.env.get("TMPDIR") ?? "/tmp")) {
    if (entry.name.startsWith("tmux-mcp-demo-")) found.push(entry.name);
  }
  return found;
}

function assertSmokeSucceeded(result: { code: number; stdout: string; stderr: string }) {
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n");
  assert.equal(lines.length, 1, "smoke prints exactly one JSON line");
  const report = JSON.parse(lines[0]);
  assert.equal(report.ok, true);
  assert.deepEqual(report.completion, { state: "exited", exit_status: 0, signal: null });
  assert.match(report.receipt.script_digest, /^[a-f0-9]{64}$/);
  assert.match(report.stdout.data, /shell environment ok/);
}

Deno.test("the demo enrolls a pane, runs a script through MCP and removes what it made", async () => {
  const before = await labLeftovers();
  const result = await run(["run", "--allow-all", MAIN, "demo"]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /A person lends pane %\d+ by typing in it:\n\s+source \//);
  assert.match(result.stdout, /completion: \{"state":"exited","exit_status":3,"signal":null\}/);
  assert.match(result.stdout, /receipt:\s+run [a-f0-9]{32}/);
  assert.deepEqual(await labLeftovers(), before);
});

Deno.test("the demo says clearly when tmux is missing", async () => {
  const empty = await Deno.makeTempDir();
  try {
    const result = await run(["run", "--allow-all", MAIN, "demo"], { PATH: empty });
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, /tmux is not installed/);
  } finally {
    await Deno.remove(empty);
  }
});

Deno.test("smoke exits 0 with one JSON line, and non-zero when the script fails", async () => {
  assertSmokeSucceeded(await run(["run", "--allow-all", MAIN, "smoke"]));
  const failing = await run(["run", "--allow-all", MAIN, "smoke", "--script", "exit 4"]);
  assert.equal(failing.code, 1);
  const report = JSON.parse(failing.stdout);
  assert.equal(report.ok, false);
  assert.deepEqual(report.completion, { state: "exited", exit_status: 4, signal: null });
});

Deno.test("smoke keeps to --run-timeout, and a failure to set up is one line, no trace", async () => {
  const late = await run([
    "run",
    "--allow-all",
    MAIN,
    "smoke",
    "--run-timeout",
    "1",
    "--script",
    "sleep 30",
  ]);
  assert.equal(late.code, 1, late.stderr);
  const report = JSON.parse(late.stdout);
  assert.equal(report.error.code, "deadline");
  assert.match(report.error.message, /run deadline \(1 s\)/);
  // A temporary directory that does not exist: the private lab cannot be made.
  const missing = `/nonexistent-${crypto.randomUUID()}`;
  const smoke = await run(["run", "--allow-all", MAIN, "smoke"], { TMPDIR: missing });
  assert.equal(smoke.code, 1, smoke.stderr);
  assert.deepEqual(JSON.parse(smoke.stdout), {
    ok: false,
    error: "NotFound while preparing the private tmux server or the MCP server",
  });
  assert.equal(smoke.stderr, "");
  const demo = await run(["run", "--allow-all", MAIN, "demo"], { TMPDIR: missing });
  assert.equal(demo.code, 1);
  assert.equal(
    demo.stderr,
    "tmux-mcp demo: NotFound while preparing the private tmux server or the MCP server\n",
  );
});

Deno.test("the bundle is one file that enrolls and runs with deno run", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-bundle-" });
  try {
    const bundled = await run(["bundle", "--quiet", "-o", `${dir}/tmux-mcp.js`, MAIN]);
    assert.equal(bundled.code, 0, bundled.stderr);
    await Deno.copyFile(`${dir}/tmux-mcp.js`, `${dir}/copy.js`);
    assertSmokeSucceeded(await run(["run", "--allow-all", `${dir}/copy.js`, "smoke"]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno run of the checkout over HTTP loads its imports and helper from the URL", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    if (path.includes("..")) return new Response("no", { status: 400 });
    try {
      return new Response(await Deno.readFile(`${ROOT}${path.slice(1)}`), {
        headers: { "content-type": path.endsWith(".ts") ? "application/typescript" : "text/plain" },
      });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  try {
    const url = `http://127.0.0.1:${server.addr.port}/main.ts`;
    const version = await run(["run", "--allow-all", url, "--version"]);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^tmux-mcp \d+\.\d+\.\d+/);
    assertSmokeSucceeded(await run(["run", "--allow-all", url, "smoke"]));
  } finally {
    await server.shutdown();
  }
});

const compileSkip = await compileUnavailable();

Deno.test({
  name: `the compiled binary enrolls and runs${compileSkip ? ` (skipped: ${compileSkip})` : ""}`,
  ignore: compileSkip !== null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-compile-" });
    try {
      // The compile task's own command line, with the output moved into the temp dir.
      const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
      const words: string[] = config.tasks.compile.split(" ").slice(1);
      words[words.indexOf("-o") + 1] = `${dir}/tmux-mcp`;
      const built = await new Deno.Command(Deno.execPath(), { args: words, cwd: ROOT }).output();
      assert.equal(built.code, 0, new TextDecoder().decode(built.stderr));
      const smoke = await new Deno.Command(`${dir}/tmux-mcp`, { args: ["smoke"] }).output();
      assertSmokeSucceeded({
        code: smoke.code,
        stdout: new TextDecoder().decode(smoke.stdout),
        stderr: new TextDecoder().decode(smoke.stderr),
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Null when `deno compile` can get its runtime here; otherwise why not. */
async function compileUnavailable(): Promise<string | null> {
  if (Deno.env.get("DENORT_BIN")) return null;
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-compile-probe-" });
  try {
    await Deno.writeTextFile(`${dir}/probe.ts`, "console.log(1);\n");
    const probe = await run(["compile", "--quiet", "-o", `${dir}/probe`, `${dir}/probe.ts`]);
    if (probe.code === 0) return null;
    return /dns|lookup|connect|network/i.test(probe.stderr)
      ? "the denort runtime download is not reachable and DENORT_BIN is not set"
      : "deno compile failed for a one-line program";
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
