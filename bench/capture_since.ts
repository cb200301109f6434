// How long capture_since takes as a client sees it, and how long the slowest of a burst of
// concurrent ones waits: every look at a pane goes through the capture's temporary file, so
// where that file lives and how it is made shows here. The server is its own process on stdio,
// with the environment an MCP client gives it (no XDG_RUNTIME_DIR) plus `--tmpdir` as TMPDIR.
//
//   deno run -A bench/capture_since.ts [--tmpdir DIR] [--runs N]
import { parseArgs } from "node:util";
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import { SERVER_V8_FLAGS } from "./server_process.ts";
import { openLab } from "../lib/cli/private_lab.ts";

const { values: options } = parseArgs({
  options: {
    tmpdir: { type: "string" },
    runs: { type: "string", default: "400" },
  },
});
const RUNS = Number(options.runs);
const WARMUP = 30;
const BURST = 8;
const BURSTS = 50;
const MAIN_PATH = new URL("../main.ts", import.meta.url).pathname;

function percentile(durations: number[], q: number): number {
  const sorted = durations.toSorted((a, b) => a - b);
  return Math.round(sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] * 100) / 100;
}

const lab = await openLab({ prefix: "tmux-mcp-bench-capture" });
const env: Record<string, string> = {};
for (const [name, value] of Object.entries(Deno.env.toObject())) {
  if (name !== "XDG_RUNTIME_DIR" && name !== "TMPDIR") env[name] = value;
}
if (options.tmpdir) env.TMPDIR = options.tmpdir;
const transport = new LineClientTransport(
  Deno.execPath(),
  [
    "run",
    "--allow-all",
    `--v8-flags=${SERVER_V8_FLAGS}`,
    MAIN_PATH,
    "--socket-name",
    lab.socketName,
  ],
  env,
);
const client = new Client({ name: "tmux-mcp-bench-capture", version: "1" });
try {
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    // The payload: a failure's text content is a line to read (lib/mcp/tool_result.ts).
    // deno-lint-ignore no-explicit-any
    const payload = result.structuredContent as any;
    if (!payload.ok) throw new Error(`${name} failed: ${JSON.stringify(payload)}`);
    return payload;
  };
  // A wait opens the session's control-mode connection, which captures then go through.
  await call("wait_for_text", { pane_id: lab.pane, patterns: ["no such text"], timeout: 1 });
  const sequential: number[] = [];
  for (let i = -WARMUP; i < RUNS; i++) {
    const start = performance.now();
    await call("capture_since", { pane_id: lab.pane });
    if (i >= 0) sequential.push(performance.now() - start);
  }
  const slowestOfBurst: number[] = [];
  for (let i = 0; i < BURSTS; i++) {
    const start = performance.now();
    await Promise.all(
      Array.from({ length: BURST }, () => call("capture_since", { pane_id: lab.pane })),
    );
    slowestOfBurst.push(performance.now() - start);
  }
  console.log(JSON.stringify({
    tmpdir: options.tmpdir ?? "(unset: /tmp)",
    capture_since_ms: {
      runs: RUNS,
      p50: percentile(sequential, 0.5),
      p95: percentile(sequential, 0.95),
      max: percentile(sequential, 1),
    },
    burst_of_8_ms: {
      bursts: BURSTS,
      p50: percentile(slowestOfBurst, 0.5),
      p95: percentile(slowestOfBurst, 0.95),
      max: percentile(slowestOfBurst, 1),
    },
  }));
} finally {
  await client.close();
  await lab.close();
}
