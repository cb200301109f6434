// Where does a full-size tmux_run go, in CPU? 100 runs of `true` and 100 of a perl that writes
// 256 KiB to each stream, through the server as its own process, with the CPU time the server and
// the helper spent per run (utime + stime from /proc, in 10 ms ticks, so per-run figures are
// averages), their minor page faults (and those of the helper's children), and the helper's peak
// RSS. The server runs with the V8 flags README.md recommends unless `--server-v8-flags=` names
// others (empty: none).
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
import { procCounters } from "./proc_stat.ts";

const { v8Flags, runs: RUNS } = benchCommandLine(100);
const WARMUP = 5;
const BYTES = 262144;
const SCRIPTS = {
  "true": "true",
  "256 KiB + 256 KiB, one perl": `perl -e 'print "a" x ${BYTES}; print STDERR "b" x ${BYTES}'`,
};

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
      const before = {
        server: await procCounters(transport.pid),
        helper: await procCounters(helper),
      };
      const start = performance.now();
      for (let i = 0; i < RUNS; i++) await run();
      const after = {
        server: await procCounters(transport.pid),
        helper: await procCounters(helper),
      };
      const perRun = (value: number) => round(value / RUNS);
      rows[name] = {
        "wall ms": perRun(performance.now() - start),
        "server CPU ms": perRun(after.server.cpuMs - before.server.cpuMs),
        "helper CPU ms": perRun(after.helper.cpuMs - before.helper.cpuMs),
        "server faults": perRun(after.server.faults - before.server.faults),
        "helper faults": perRun(after.helper.faults - before.helper.faults),
        "helper's children's faults": perRun(after.helper.childFaults - before.helper.childFaults),
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
