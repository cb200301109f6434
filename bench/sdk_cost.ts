// What speaking MCP through the official SDK costs this server, beside a bare SDK v2 server
// (bench/bare_sdk_server.ts) serving the same tools/list, both started as clients start them
// (own process, real stdio, the recommended V8 flags) in the same run: the cold start to the
// first tools/list answer, resident memory then and after CALLS tools/call round trips, and the
// p50 of one round trip. The call is capture_pane with an invalid pane_id: the SDK's request
// path, our validation and our refusal, without tmux. `--main PATH` measures another checkout's
// main.ts (an older commit, to compare with today's figures).
import { parseArgs } from "node:util";
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import { SERVER_V8_FLAGS } from "./server_process.ts";
import { randomHex } from "../lib/util/ids.ts";

const CALLS = 2000;
const WARMUP = 50;
const BARE = new URL("./bare_sdk_server.ts", import.meta.url).pathname;

type Figures = {
  cold_start_ms: number;
  rss_mib_after_startup: number;
  rss_mib_after_calls: number;
  call_p50_ms: number;
};

async function rssMiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return Math.round(kib / 1024 * 10) / 10;
}

function p50(durations: number[]): number {
  const sorted = durations.toSorted((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] * 1000) / 1000;
}

/** Starts `args` under this Deno, lists the tools, makes CALLS calls; returns the figures. */
async function measure(args: string[], onTools?: (tools: unknown[]) => Promise<void>) {
  const started = performance.now();
  const transport = new LineClientTransport(Deno.execPath(), args);
  const client = new Client({ name: "tmux-mcp-bench", version: "1" });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    const coldStart = performance.now() - started;
    await onTools?.(tools);
    const afterStartup = await rssMiB(transport.pid);
    const durations: number[] = [];
    for (let i = -WARMUP; i < CALLS; i++) {
      const start = performance.now();
      const result = await client.callTool({ name: "capture_pane", arguments: { pane_id: "x" } });
      if (!result.isError) throw new Error("the invalid call was not refused");
      if (i >= 0) durations.push(performance.now() - start);
    }
    return {
      cold_start_ms: Math.round(coldStart),
      rss_mib_after_startup: afterStartup,
      rss_mib_after_calls: await rssMiB(transport.pid),
      call_p50_ms: p50(durations),
    } satisfies Figures;
  } finally {
    await client.close();
  }
}

/** This server's figures and the bare SDK server's, and their ratios. */
export async function sdkCost(main = new URL("../main.ts", import.meta.url).pathname) {
  const flags = [`--v8-flags=${SERVER_V8_FLAGS}`];
  const toolsFile = await Deno.makeTempFile({ prefix: "tmux-mcp-tools-" });
  try {
    const ours = await measure(
      ["run", "--allow-all", ...flags, main, "--socket-name", `absent-${randomHex(6)}`],
      (tools) => Deno.writeTextFile(toolsFile, JSON.stringify(tools)),
    );
    const bare = await measure(["run", "--allow-all", ...flags, BARE, toolsFile]);
    const ratio = (a: number, b: number) => Math.round(a / b * 100) / 100;
    return {
      ours,
      bare_sdk: bare,
      rss_ratio_after_startup: ratio(ours.rss_mib_after_startup, bare.rss_mib_after_startup),
      rss_ratio_after_calls: ratio(ours.rss_mib_after_calls, bare.rss_mib_after_calls),
      call_p50_extra_ms: Math.round((ours.call_p50_ms - bare.call_p50_ms) * 1000) / 1000,
    };
  } finally {
    await Deno.remove(toolsFile);
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { main: { type: "string" } } });
  console.log(JSON.stringify(await sdkCost(values.main)));
}
