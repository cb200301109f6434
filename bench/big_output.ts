// Where does a full-size tmux_run output's time go? The same 256 KiB stdout + 256 KiB stderr
// run, written by a `head | tr` pipeline per stream (what bench/bench.ts runs) and by one perl
// process, through the SDK's StdioClientTransport and through a client transport that reads
// lines linearly, each against its own server process, beside a bare `true`; then what the
// SDK's ReadBuffer alone spends on one such response line, fed in 64 KiB pieces as a pipe
// delivers it: it looks for the newline from the start of everything buffered on every piece,
// with Deno's Buffer.indexOf. The server runs with the V8 flags README.md recommends.
// Usage: deno run -A bench/big_output.ts [RUNS]   (default 20)
import { Client, ReadBuffer, StdioClientTransport } from "../lib/dev_deps.ts";
import { type CallTool, enrollLabPane, serverArgs } from "./server_process.ts";
import { Buffer } from "node:buffer";
import { LineClientTransport } from "./line_client_transport.ts";
import { openLab } from "../lib/cli/private_lab.ts";

const RUNS = Number(Deno.args[0] ?? 20);
const WARMUP = 5;
const BYTES = 262144;
const SCRIPTS = {
  "true": "true",
  "head | tr, per stream": `head -c ${BYTES} /dev/zero | tr '\\0' a; ` +
    `head -c ${BYTES} /dev/zero | tr '\\0' b >&2`,
  "one perl process": `perl -e 'print "a" x ${BYTES}; print STDERR "b" x ${BYTES}'`,
};

function p50(durations: number[]): number {
  const sorted = durations.toSorted((a, b) => a - b);
  return Math.round(sorted[Math.ceil(sorted.length / 2) - 1] * 100) / 100;
}

/** One server, the lab's pane enrolled with it, every script RUNS times; p50 per script. */
async function measureThrough(kind: "sdk" | "linear"): Promise<Record<string, number>> {
  const lab = await openLab({ prefix: "tmux-mcp-big" });
  try {
    const setup = `${lab.dir}/setup`;
    const args = serverArgs(lab.socketName, [[lab.pane, setup]]);
    const transport = kind === "sdk"
      ? new StdioClientTransport({ command: Deno.execPath(), args, env: Deno.env.toObject() })
      : new LineClientTransport(Deno.execPath(), args);
    const client = new Client({ name: "tmux-mcp-big-output", version: "1" });
    await client.connect(transport);
    try {
      const call: CallTool = async (name, args = {}) => {
        const result = await client.callTool({ name, arguments: args });
        // The payload: the text content is for reading (lib/mcp/tool_result.ts).
        return result.structuredContent;
      };
      const generation = await enrollLabPane(lab, setup, call);
      const results: Record<string, number> = {};
      for (const [name, script] of Object.entries(SCRIPTS)) {
        const durations: number[] = [];
        for (let i = -WARMUP; i < RUNS; i++) {
          const start = performance.now();
          const payload = await call("tmux_run", {
            target: { kind: "pane", id: lab.pane, generation },
            script,
            stdout_limit: BYTES,
            stderr_limit: BYTES,
          });
          if (i >= 0) durations.push(performance.now() - start);
          const expected = script === "true" ? 0 : BYTES;
          if (!payload.ok || payload.data.stdout.bytes !== expected) {
            throw new Error(`tmux_run failed: ${JSON.stringify(payload).slice(0, 300)}`);
          }
        }
        results[name] = p50(durations);
      }
      return results;
    } finally {
      await client.close();
    }
  } finally {
    await lab.close();
  }
}

/** The SDK's ReadBuffer on a response line of the size the big run returns, in 64 KiB pieces. */
function readBufferMs(): number {
  const data = "a".repeat(BYTES);
  const payload = JSON.stringify({ ok: true, data: { stdout: data, stderr: data } });
  const message = {
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: payload }], structuredContent: JSON.parse(payload) },
  };
  const line = new TextEncoder().encode(`${JSON.stringify(message)}\n`);
  const durations: number[] = [];
  for (let i = -WARMUP; i < RUNS; i++) {
    const buffer = new ReadBuffer();
    const start = performance.now();
    for (let at = 0; at < line.length; at += 65536) {
      buffer.append(Buffer.from(line.subarray(at, at + 65536)));
      buffer.readMessage();
    }
    if (i >= 0) durations.push(performance.now() - start);
  }
  return p50(durations);
}

const sdk = await measureThrough("sdk");
const linear = await measureThrough("linear");
const readBuffer = readBufferMs();
const rows = Object.fromEntries(
  Object.keys(SCRIPTS).map((name) => [name, {
    "StdioClientTransport ms": sdk[name],
    "× true": Math.round((sdk[name] / sdk.true) * 100) / 100,
    "linear reader ms": linear[name],
    "× true ": Math.round((linear[name] / linear.true) * 100) / 100,
  }]),
);
console.log(`tmux_run p50 of ${RUNS} after ${WARMUP} warm-ups, 256 KiB to each stream`);
console.table(rows);
console.log(`the SDK's ReadBuffer alone on one such response line: ${readBuffer} ms (p50)`);
console.log(
  JSON.stringify({ sdk_transport_ms: sdk, linear_reader_ms: linear, read_buffer_ms: readBuffer }),
);
