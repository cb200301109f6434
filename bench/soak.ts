// Does memory stay flat over many runs? This runs N tmux_run calls through the server as its own
// process over real stdio against one pane a person enrolled with `source`, and prints the
// resident memory (VmRSS) and open descriptor count of the server and of the helper at 0, 100,
// 500, 1000 and 2000 runs (or the same fractions of N), then one JSON line.
// Usage: deno run -A bench/soak.ts [RUNS] [--server-v8-flags=FLAGS]   (default 2000 runs, and
// the server's flags that README.md recommends; `--server-v8-flags=` runs it without)
import { Client, StdioClientTransport } from "../lib/dev_deps.ts";
import {
  benchCommandLine,
  type CallTool,
  enrollLabPane,
  helperOfPane,
  serverArgs,
} from "./server_process.ts";
import { openLab } from "../lib/cli/private_lab.ts";

const { v8Flags, runs: RUNS } = benchCommandLine(2000);
const CHECKPOINTS = [0, 100, 500, 1000, 2000].map((n) => Math.round((n * RUNS) / 2000));

type Sample = { runs: number; server: Usage; helper: Usage };
type Usage = { rss_kib: number; fds: number };

async function usage(pid: number): Promise<Usage> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  let fds = 0;
  for await (const _ of Deno.readDir(`/proc/${pid}/fd`)) fds++;
  return { rss_kib: Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]), fds };
}

const lab = await openLab({ prefix: "tmux-mcp-soak" });
const setup = `${lab.dir}/setup`;
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  args: serverArgs(lab.socketName, [[lab.pane, setup]], v8Flags),
  env: Deno.env.toObject(),
});
const client = new Client({ name: "tmux-mcp-soak", version: "1" });
try {
  await client.connect(transport);
  const call: CallTool = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args });
    // The payload: the text content is for reading (lib/mcp/tool_result.ts).
    return result.structuredContent;
  };
  const generation = await enrollLabPane(lab, setup, call);
  const helperPid = await helperOfPane(lab, lab.pane);
  const serverPid = transport.pid!;

  const samples: Sample[] = [];
  const sample = async (runs: number) => {
    const taken = { runs, server: await usage(serverPid), helper: await usage(helperPid) };
    samples.push(taken);
    console.log(
      `${String(runs).padStart(6)} runs  server ${
        (taken.server.rss_kib / 1024).toFixed(1).padStart(6)
      } MiB ${String(taken.server.fds).padStart(3)} fds   helper ${
        (taken.helper.rss_kib / 1024).toFixed(1).padStart(6)
      } MiB ${String(taken.helper.fds).padStart(3)} fds`,
    );
  };
  const started = performance.now();
  for (let i = 0; i <= RUNS; i++) {
    if (CHECKPOINTS.includes(i)) await sample(i);
    if (i === RUNS) break;
    const result = await call("tmux_run", {
      target: { kind: "pane", id: lab.pane, generation },
      script: `echo run ${i}; echo err >&2`,
    });
    if (!result.ok || result.data.stdout.data !== `run ${i}\n`) {
      throw new Error(`run ${i} failed: ${JSON.stringify(result).slice(0, 400)}`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const at = (runs: number) => samples.find((s) => s.runs === runs)!;
  const growth = (from: Usage, to: Usage) => Number((to.rss_kib / from.rss_kib).toFixed(3));
  console.log(JSON.stringify({
    server_v8_flags: v8Flags,
    runs: RUNS,
    seconds: Number(seconds.toFixed(1)),
    samples,
    helper_rss_ratio_last_to_100: growth(at(CHECKPOINTS[1]).helper, at(RUNS).helper),
    server_rss_ratio_last_to_100: growth(at(CHECKPOINTS[1]).server, at(RUNS).server),
  }));
} finally {
  await client.close();
  await lab.close();
}
