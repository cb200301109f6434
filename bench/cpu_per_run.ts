// Where does a full-size tmux_run go, in CPU? 100 runs of `true` and 100 of a perl that writes
// 256 KiB to each stream, through the server as its own process, with the CPU time the server and
// the helper spent per run (utime + stime from /proc, in 10 ms ticks, so per-run figures are
// averages) and the helper's peak RSS. The server runs with the V8 flags README.md recommends
// unless `--server-v8-flags=` names others (empty: none).
// Usage: deno run -A bench/cpu_per_run.ts [RUNS] [--server-v8-flags=FLAGS]
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import {
  benchCommandLine,
  type CallTool,
  enrollLabPane,
  helperOfPane,
  serverArgs,
} from "./server_process.ts";
import { openLab } from "../lib/cli/private_lab.ts";

const { v8Flags, runs: RUNS } = benchCommandLine(100);
const WARMUP = 5;
const BYTES = 262144;
const SCRIPTS = {
  "true": "true",
  "256 KiB + 256 KiB, one perl": `perl -e 'print "a" x ${BYTES}; print STDERR "b" x ${BYTES}'`,
};

/** CPU milliseconds `pid` has used so far. */
async function cpuMs(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function peakMib(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1]) / 1024 * 10) / 10;
}

const round = (value: number) => Math.round(value * 100) / 100;

const lab = await openLab({ prefix: "tmux-mcp-cpu" });
try {
  const setup = `${lab.dir}/setup`;
  const transport = new LineClientTransport(
    Deno.execPath(),
    serverArgs(lab.socketName, [[lab.pane, setup]], v8Flags),
  );
  const client = new Client({ name: "tmux-mcp-cpu", version: "1" });
  await client.connect(transport);
  try {
    const call: CallTool = async (name, args = {}) =>
      (await client.callTool({ name, arguments: args })).structuredContent;
    const generation = await enrollLabPane(lab, setup, call);
    const helper = await helperOfPane(lab, lab.pane);
    const rows: Record<string, Record<string, number>> = {};
    for (const [name, script] of Object.entries(SCRIPTS)) {
      const run = () =>
        call("tmux_run", {
          target: { kind: "pane", id: lab.pane, generation },
          script,
          stdout_limit: BYTES,
          stderr_limit: BYTES,
        });
      for (let i = 0; i < WARMUP; i++) await run();
      const before = { server: await cpuMs(transport.pid), helper: await cpuMs(helper) };
      const start = performance.now();
      for (let i = 0; i < RUNS; i++) await run();
      rows[name] = {
        "wall ms": round((performance.now() - start) / RUNS),
        "server CPU ms": round(((await cpuMs(transport.pid)) - before.server) / RUNS),
        "helper CPU ms": round(((await cpuMs(helper)) - before.helper) / RUNS),
        "helper peak MiB": await peakMib(helper),
      };
    }
    console.log(`per run, mean of ${RUNS} after ${WARMUP} warm-ups`);
    console.table(rows);
    console.log(JSON.stringify(rows));
  } finally {
    await client.close();
  }
} finally {
  await lab.close();
}
