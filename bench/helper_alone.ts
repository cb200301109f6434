// How soon the helper starts a script, with no MCP, tmux or zsh: this process plays the shell (the
// helper's stdin) and the server (its link), as tests/helper_test.ts does, and times `true` from
// the `script` frame to the `started` frame (the script's `sh` exec'd) and to the `result`. With
// `--fork` its launcher is killed first, so it forks each script itself, as where the launcher
// failed or cannot start (macOS). Run both, interleaved, to compare.
// Usage: deno run -A bench/helper_alone.ts [RUNS] [--fork]   (default 300)
import { parseArgs } from "node:util";
import { encodeFrame, readFrames } from "../lib/run/frames.ts";
import { helperCommand, helperProgram } from "../lib/run/helper_program.ts";
import { randomHex, sha256Hex } from "../lib/util/ids.ts";
import { childrenOf } from "../lib/host/processes.ts";
import { isJsonObject } from "../lib/util/json_object.ts";
import { summarize } from "./stats.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: { fork: { type: "boolean", default: false } },
  allowPositionals: true,
});
const RUNS = Number(positionals[0] ?? 300);
const WARMUP = 10;
/** A shell's environment of a usual size. */
const SHELL_ENV = [
  "PATH=/usr/bin:/bin",
  "HOME=/root",
  "LANG=C.UTF-8",
  `LS_COLORS=${"x".repeat(1500)}`,
];

const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-helper-alone-" });
try {
  await Deno.writeTextFile(`${dir}/helper.pl`, helperProgram);
  const listener = Deno.listen({ transport: "unix", path: `${dir}/channel` });
  const [command, ...args] = helperCommand(`${dir}/helper.pl`);
  const helper = new Deno.Command(command, { args, stdin: "piped", stdout: "null", stderr: "null" })
    .spawn();
  const shell = helper.stdin.getWriter();
  const fields = (...items: string[]) =>
    shell.write(new TextEncoder().encode(items.map((item) => `${item}\0`).join("")));
  const token = randomHex();
  await fields("H", `${dir}/channel`, token);
  const link = await listener.accept();
  listener.close();
  const frames = readFrames(link);
  const writer = link.writable.getWriter();
  const next = async (type: string) => {
    const frame = await frames.next();
    const header = frame.done ? undefined : frame.value.header;
    if (!isJsonObject(header) || header.type !== type) {
      throw new Error(`expected a ${type} frame from the helper`);
    }
  };
  await next("hello");
  // Between runs the helper's one child is its launcher (Linux).
  if (values.fork) { for (const pid of await childrenOf(helper.pid)) Deno.kill(pid, "SIGKILL"); }
  const script = new TextEncoder().encode("true");
  const digest = await sha256Hex(script);
  const started: number[] = [];
  const result: number[] = [];
  for (let i = -WARMUP; i < RUNS; i++) {
    const runId = randomHex();
    await fields("R", runId, token, digest, dir, "0022\n", String(SHELL_ENV.length), ...SHELL_ENV);
    await next("ready");
    const start = performance.now();
    await writer.write(
      encodeFrame(
        { type: "script", run_id: runId, stdout_limit: 1024, stderr_limit: 1024 },
        script,
      ),
    );
    await next("started");
    const at = performance.now();
    await next("result");
    if (i < 0) continue;
    started.push(at - start);
    result.push(performance.now() - start);
  }
  await shell.close();
  await writer.close().catch(() => {});
  await helper.status;
  const how = values.fork ? "the helper's own fork" : "the launcher (where it starts)";
  console.log(`\`true\` through the helper alone, ${how}, ${RUNS} runs after ${WARMUP} (ms)`);
  console.table({ "script → started": summarize(started), "script → result": summarize(result) });
  console.log(JSON.stringify({
    how: values.fork ? "fork" : "launcher",
    script_to_started_ms: summarize(started),
    script_to_result_ms: summarize(result),
  }));
} finally {
  await Deno.remove(dir, { recursive: true });
}
