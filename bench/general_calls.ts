// What the general tools cost as a client sees them, each as a ratio of p50 against one spawned
// `tmux list-panes` timed in the same rounds: the floor a tool pays when it starts a tmux client
// per call, which the control connection is there to undercut. Rounds interleave the calls so a
// shared machine's slow moments fall on all of them alike.
//
//   deno run -A bench/general_calls.ts [--runs N]
import { parseArgs } from "node:util";
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import { serverArgs } from "./server_process.ts";
import { openLab, type PrivateLab } from "../lib/cli/private_lab.ts";
import { runTmux } from "../lib/tmux/tmux.ts";
import { percentile, round, summarize, type Summary } from "./stats.ts";

const WARMUP = 20;

// deno-lint-ignore no-explicit-any
type Call = (name: string, args?: Record<string, unknown>) => Promise<any>;

async function checked(call: Call, name: string, args: Record<string, unknown>) {
  const payload = await call(name, args);
  if (!payload.ok) throw new Error(`${name} failed: ${JSON.stringify(payload).slice(0, 300)}`);
  return payload;
}

/**
 * p50/p95 of each general call and of a spawned `tmux list-panes`, and each call's p50 as a
 * ratio of the spawned client's. `send_keys` types into a pane that reads and discards it.
 */
export async function benchGeneralCalls(lab: PrivateLab, call: Call, runs: number) {
  const sink = (await lab.tmuxCmd(
    "new-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    "cat >/dev/null",
  )).trim();
  const steps: Record<string, () => Promise<unknown>> = {
    spawned_list_panes: async () => {
      const result = await runTmux(lab.tmux, ["list-panes", "-F", "#{pane_id}"]);
      if (result.code !== 0) throw new Error("tmux list-panes failed");
    },
    list_panes: () => checked(call, "list_panes", {}),
    capture_pane: () => checked(call, "capture_pane", { pane_id: lab.pane }),
    // The look waits take: through the connection its answer is the capture, with no file.
    capture_since: () => checked(call, "capture_since", { pane_id: lab.pane }),
    get_pane_info: () => checked(call, "get_pane_info", { pane_id: lab.pane }),
    send_keys: () => checked(call, "send_keys", { pane_id: sink, keys: "x" }),
  };
  const durations: Record<string, number[]> = {};
  for (const name of Object.keys(steps)) durations[name] = [];
  for (let i = -WARMUP; i < runs; i++) {
    for (const [name, step] of Object.entries(steps)) {
      const start = performance.now();
      await step();
      if (i >= 0) durations[name].push(performance.now() - start);
    }
  }
  const ms: Record<string, Summary> = {};
  for (const [name, list] of Object.entries(durations)) ms[name] = summarize(list);
  const floor = ms.spawned_list_panes.p50;
  const ratios: Record<string, number> = {};
  for (const name of Object.keys(steps)) {
    if (name !== "spawned_list_panes") ratios[name] = round(ms[name].p50 / floor);
  }
  await lab.tmuxCmd("kill-pane", "-t", sink);
  return { ms, ratio_p50_to_spawned_list_panes: ratios };
}

/**
 * search_panes over `count` panes (each a shell's screen), p50 of `runs` and its ratio to one
 * spawned `tmux list-panes` timed in the same rounds. The panes are made here and killed after.
 */
export async function benchSearch(lab: PrivateLab, call: Call, count: number, runs: number) {
  const panes: string[] = [];
  for (let i = 0; i < count; i++) {
    const printf = `printf 'line %s of pane ${i}\\n' $(seq 1 20); exec cat`;
    panes.push(
      (await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", printf)).trim(),
    );
  }
  const spawned: number[] = [];
  const search: number[] = [];
  for (let i = -5; i < runs; i++) {
    let start = performance.now();
    await runTmux(lab.tmux, ["list-panes", "-F", "#{pane_id}"]);
    if (i >= 0) spawned.push(performance.now() - start);
    start = performance.now();
    await checked(call, "search_panes", { pattern: "of pane 7" });
    if (i >= 0) search.push(performance.now() - start);
  }
  for (const pane of panes) await lab.tmuxCmd("kill-pane", "-t", pane);
  const ms = summarize(search);
  return {
    panes: count,
    ms,
    ratio_p50_to_spawned_list_panes: round(ms.p50 / percentile(spawned, 0.5)),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { runs: { type: "string", default: "200" } } });
  const lab = await openLab({ prefix: "tmux-mcp-bench-general" });
  const client = new Client({ name: "tmux-mcp-bench-general", version: "1" });
  try {
    await client.connect(new LineClientTransport(Deno.execPath(), serverArgs(lab.socketName, [])));
    const call: Call = async (name, args = {}) => {
      const result = await client.callTool({ name, arguments: args });
      // The payload: the text content is for reading (lib/mcp/tool_result.ts).
      return result.structuredContent;
    };
    console.log(JSON.stringify({
      general_calls: await benchGeneralCalls(lab, call, Number(values.runs)),
      search_panes: [
        await benchSearch(lab, call, 40, 40),
        await benchSearch(lab, call, 100, 20),
      ],
    }));
  } finally {
    await client.close();
    await lab.close();
  }
}
