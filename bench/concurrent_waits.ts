// Ten wait_for_text calls pending at once, each on its own quiet pane, while other panes of the
// same session flood output: how soon each wait answers once its text appears (issue 18 item 3,
// target p95 ≤ 15 ms). The server's control connection to the session is open, as in normal use.
//
// The text appears when this process writes a line to the pane's terminal (its /dev/pts device):
// the clock starts right before that write and stops when the client has the wait's answer. So
// the interval covers tmux reading the terminal, the `%output` reaching the server through its
// control connection, the wait's look (one capture through that connection), the match, the
// answer over stdio and the client's parse; nothing of a shell or of send-keys. Same-run
// baselines: one spawned tmux client, one wait alone, the ten waits without floods, and tmux's
// own share (the `%output` and one capture at a control connection of this process, no MCP).
// Per flooded round, how long the server, this client and tmux waited runnable for a CPU tells a
// round the machine stalled from one the wait's own steps made slow.
//
//   deno run -A bench/concurrent_waits.ts [--rounds N]
import { parseArgs } from "node:util";
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import { serverArgs } from "./server_process.ts";
import { openLab, type PrivateLab, waitFor } from "../lib/cli/private_lab.ts";
import { runTmux } from "../lib/tmux/tmux.ts";
import { closeControlConnections, serverAnswered, serverFor } from "../lib/tmux/control_servers.ts";
import { randomHex } from "../lib/util/ids.ts";
import { delay } from "../lib/util/delay.ts";
import { percentile, round, summarize, type Summary } from "./stats.ts";
import { procCounters, runQueueWaitMs } from "./proc_stat.ts";

/** A tool call that answers the tool's payload and reports each progress notification. */
export type ProgressCall = (
  name: string,
  args: Record<string, unknown>,
  onprogress?: () => void,
  // deno-lint-ignore no-explicit-any
) => Promise<any>;

const WAITS = 10;
const FLOOD_PANES = 4;
const FLOOD_LINE = "flood ".repeat(13);
/** Staggered rounds write each pane's text at a random moment within this interval. */
const STAGGER_MS = 100;
const WARMUP_ROUNDS = 2;
const SPAWNED_RUNS = 40;
const SINGLE_RUNS = 40;
const TARGET_P95_MS = 15;

const encoder = new TextEncoder();

type QuietPane = { id: string; tty: Deno.FsFile };

/** `count` new windows of the lab's session, each a process that writes nothing. */
async function quietPanes(lab: PrivateLab, count: number): Promise<QuietPane[]> {
  const panes: QuietPane[] = [];
  for (let i = 0; i < count; i++) {
    const id = await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", "exec sleep 86400");
    const tty = await lab.tmuxCmd("display-message", "-p", "-t", id, "#{pane_tty}");
    panes.push({ id, tty: await Deno.open(tty, { write: true }) });
  }
  return panes;
}

/** A wait for `token`: `begun` once its first progress says it watches, `answer` its payload. */
function startWait(call: ProgressCall, pane: string, token: string) {
  let watching!: () => void;
  const begun = new Promise<void>((resolve) => watching = resolve);
  const answer = call(
    "wait_for_text",
    { pane_id: pane, patterns: [token], timeout: 10 },
    () => watching(),
  ).then((payload) => {
    if (!payload.ok || payload.data.outcome !== "matched" || payload.data.matched_text !== token) {
      throw new Error(`wait_for_text did not match: ${JSON.stringify(payload).slice(0, 500)}`);
    }
  });
  return {
    begun: Promise.race([
      begun,
      answer.then(() => {
        throw new Error("wait_for_text answered before its text was written");
      }),
    ]),
    answer,
  };
}

/**
 * One round: a wait on each pane, all pending at once, then each pane's text written, at a
 * random moment within STAGGER_MS (`staggered`) or one right after another (`burst`); the time
 * from each write to its wait's answer.
 */
async function oneRound(
  call: ProgressCall,
  panes: QuietPane[],
  schedule: "staggered" | "burst",
): Promise<number[]> {
  const tokens = panes.map(() => `CW_${randomHex(6)}`);
  const waits = panes.map((pane, i) => startWait(call, pane.id, tokens[i]));
  await Promise.all(waits.map((wait) => wait.begun));
  return await Promise.all(panes.map(async (pane, i) => {
    if (schedule === "staggered") await delay(Math.random() * STAGGER_MS);
    const line = encoder.encode(`${tokens[i]}\n`);
    const start = performance.now();
    pane.tty.writeSync(line);
    await waits[i].answer;
    return performance.now() - start;
  }));
}

/**
 * `count` rounds after the warm-up ones: each round's durations. `onRound` is called right
 * before and right after each of them.
 */
async function rounds(
  call: ProgressCall,
  panes: QuietPane[],
  count: number,
  schedule: "staggered" | "burst",
  onRound: (phase: "before" | "after") => Promise<void> = async () => {},
): Promise<number[][]> {
  const byRound: number[][] = [];
  for (let i = -WARMUP_ROUNDS; i < count; i++) {
    if (i < 0) {
      await oneRound(call, panes, schedule);
      continue;
    }
    await onRound("before");
    byRound.push(await oneRound(call, panes, schedule));
    await onRound("after");
  }
  return byRound;
}

/**
 * Per round, how long each process waited, runnable, for a CPU (`runQueueWaitMs`): a round
 * whose waits stall beside long waits of the server and the client for a CPU was slowed by the
 * machine, not by a step of the wait.
 */
function runQueueWaits(pids: Record<string, number>) {
  const byRound: Record<string, (number | null)[]> = {};
  const before: Record<string, number | null> = {};
  const onRound = async (phase: "before" | "after") => {
    for (const [name, pid] of Object.entries(pids)) {
      const waited = await runQueueWaitMs(pid);
      const start = before[name];
      if (phase === "before") before[name] = waited;
      else {
        (byRound[name] ??= []).push(
          waited === null || start === null ? null : round(waited - start),
        );
      }
    }
  };
  return { byRound, onRound };
}

/**
 * The p50 of each process's per-round wait for a CPU, over the rounds with a wait over the
 * target and over the others (null where there are none or the kernel keeps no figure).
 */
function runQueueWaitsApart(
  durations: number[][],
  byRound: Record<string, (number | null)[]>,
) {
  const stalled = durations.map((ofRound) => ofRound.some((ms) => ms > TARGET_P95_MS));
  const p50 = (waits: (number | null)[], wanted: boolean) => {
    const chosen = waits.filter((_, i) => stalled[i] === wanted);
    const known = chosen.filter((ms): ms is number => ms !== null);
    return known.length && known.length === chosen.length ? round(percentile(known, 0.5)) : null;
  };
  const apart = (wanted: boolean) =>
    Object.fromEntries(Object.entries(byRound).map(([name, waits]) => [name, p50(waits, wanted)]));
  return { rounds_over_target: apart(true), other_rounds: apart(false) };
}

/** Round trips of one spawned `tmux display-message`, the floor a client per call pays. */
async function spawnedClient(lab: PrivateLab): Promise<number[]> {
  const durations: number[] = [];
  for (let i = -5; i < SPAWNED_RUNS; i++) {
    const start = performance.now();
    const result = await runTmux(lab.tmux, ["display-message", "-p", "#{pane_id}"]);
    if (result.code !== 0) throw new Error("tmux display-message failed");
    if (i >= 0) durations.push(performance.now() - start);
  }
  return durations;
}

/**
 * tmux's own share of a wake-up, without the MCP server: from the write to the `%output` of
 * the pane at a control connection of this process, then one capture answered through it. None
 * where this tmux gets no control connection (before 3.7: docs/tmux_versions.md).
 */
async function controlFloor(lab: PrivateLab, pane: QuietPane): Promise<number[] | null> {
  serverAnswered(lab.tmux);
  const connection = await serverFor(lab.tmux).forPane(pane.id);
  if (!connection) return null;
  const never = new AbortController().signal;
  const durations: number[] = [];
  for (let i = -5; i < SINGLE_RUNS; i++) {
    const token = `FLOOR_${randomHex(6)}`;
    await connection.watch(pane.id);
    const woken = connection.nextOutput(pane.id, 10_000, never);
    await delay(Math.random() * STAGGER_MS);
    const start = performance.now();
    pane.tty.writeSync(encoder.encode(`${token}\n`));
    await woken;
    const capture = await connection.run(["capture-pane", "-p", "-t", pane.id]);
    if (i >= 0) durations.push(performance.now() - start);
    if (!capture.stdout.includes(token)) throw new Error("the floor's capture missed its text");
  }
  return durations;
}

async function tmuxVersion(lab: PrivateLab): Promise<string> {
  const out = await new Deno.Command(lab.tmux.bin, { args: ["-V"], stdout: "piped" }).output();
  return new TextDecoder().decode(out.stdout).trim();
}

/**
 * The figures, p50/p95 in ms: one spawned client and one wait alone without floods, ten waits
 * without and with FLOOD_PANES panes running `yes` in the same session, and the tmux server's
 * CPU share while they flood. `call` is a client of a server bound to the lab's tmux server,
 * `serverPid` that server's process.
 */
export async function benchConcurrentWaits(
  lab: PrivateLab,
  call: ProgressCall,
  serverPid: number,
  count: number,
) {
  const [floorPane, ...panes] = await quietPanes(lab, 1 + WAITS);
  const floods: string[] = [];
  // This process's own connection is there only while it measures the floor.
  const floor = async (): Promise<Summary | undefined> => {
    try {
      const durations = await controlFloor(lab, floorPane);
      return durations === null ? undefined : summarize(durations);
    } finally {
      await closeControlConnections();
    }
  };
  try {
    const ms: Record<string, Summary> = {};
    // tmux alone, through a control connection: none before tmux 3.7.
    const floors: { quiet?: Summary; flooded?: Summary } = {};
    ms.spawned_client_quiet = summarize(await spawnedClient(lab));
    floors.quiet = await floor();
    ms.ten_waits_quiet = summarize((await rounds(call, panes, count, "staggered")).flat());
    const single = await rounds(call, panes.slice(0, 1), SINGLE_RUNS, "staggered");
    ms.one_wait_quiet = summarize(single.flat());
    for (let i = 0; i < FLOOD_PANES; i++) {
      const command = `exec yes '${FLOOD_LINE}'`;
      floods.push(await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", command));
    }
    await waitFor("the floods to fill their panes' history", async () => {
      const sizes = await Promise.all(
        floods.map((pane) => lab.tmuxCmd("display-message", "-p", "-t", pane, "#{history_size}")),
      );
      return sizes.every((size) => Number(size) > 100);
    });
    const tmuxPid = Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
    const cpuBefore = (await procCounters(tmuxPid)).cpuMs;
    const wallBefore = performance.now();
    ms.spawned_client_flooded = summarize(await spawnedClient(lab));
    floors.flooded = await floor();
    const cpuWaits = runQueueWaits({ server: serverPid, client: Deno.pid, tmux: tmuxPid });
    const floodedRounds = await rounds(call, panes, count, "staggered", cpuWaits.onRound);
    ms.ten_waits_flooded = summarize(floodedRounds.flat());
    ms.ten_waits_flooded_burst = summarize((await rounds(call, panes, count, "burst")).flat());
    const cpuShare = ((await procCounters(tmuxPid)).cpuMs - cpuBefore) /
      (performance.now() - wallBefore);
    const flooded = ms.ten_waits_flooded;
    return {
      tmux: await tmuxVersion(lab),
      waits: WAITS,
      flood_panes: FLOOD_PANES,
      rounds: count,
      ms,
      control_floor: floors,
      target_p95_ms: TARGET_P95_MS,
      tmux_server_cpu_percent_flooded: Math.round(cpuShare * 100),
      // Which rounds the waits over the target came from: several in one round point at a stall
      // of the server or the machine, one here and there at steady contention.
      flooded_over_target_by_round: floodedRounds.map((round) =>
        round.filter((ms) => ms > TARGET_P95_MS).length
      ),
      flooded_run_queue_wait_ms_by_round: cpuWaits.byRound,
      flooded_run_queue_wait_ms_p50: runQueueWaitsApart(floodedRounds, cpuWaits.byRound),
      ratio_p95_to_one_wait_quiet: round(flooded.p95 / ms.one_wait_quiet.p95),
      ratio_p95_to_control_floor_flooded_p95: floors.flooded
        ? round(flooded.p95 / floors.flooded.p95)
        : null,
      ratio_p95_to_spawned_client_flooded_p50: round(
        flooded.p95 / ms.spawned_client_flooded.p50,
      ),
    };
  } finally {
    for (const pane of floods) await lab.tmuxCmd("kill-pane", "-t", pane).catch(() => {});
    for (const pane of [floorPane, ...panes]) {
      pane.tty.close();
      await lab.tmuxCmd("kill-pane", "-t", pane.id).catch(() => {});
    }
  }
}

export function printConcurrentWaits(result: Awaited<ReturnType<typeof benchConcurrentWaits>>) {
  console.log(
    `wait_for_text from the text's write to the answer, ${result.waits} waits pending at once, ` +
      `${result.rounds} rounds; floods: ${result.flood_panes} panes running yes in the same ` +
      `session (${result.tmux}; tmux server at ${result.tmux_server_cpu_percent_flooded}% CPU ` +
      `while flooded), ms`,
  );
  const ms = result.ms;
  const floors = result.control_floor;
  console.table({
    "one spawned tmux client, quiet": ms.spawned_client_quiet,
    ...(floors.quiet ? { "tmux alone: %output + a capture, quiet": floors.quiet } : {}),
    "one wait alone, quiet": ms.one_wait_quiet,
    [`${result.waits} waits, quiet`]: ms.ten_waits_quiet,
    "one spawned tmux client, flooded": ms.spawned_client_flooded,
    ...(floors.flooded ? { "tmux alone: %output + a capture, flooded": floors.flooded } : {}),
    [`${result.waits} waits, flooded`]: ms.ten_waits_flooded,
    [`${result.waits} waits, flooded, texts in a burst`]: ms.ten_waits_flooded_burst,
  });
  console.log(
    `p95 of ${result.waits} waits under floods: ${ms.ten_waits_flooded.p95} ms (target ≤ ` +
      `${result.target_p95_ms}); ${result.ratio_p95_to_one_wait_quiet}x one quiet wait's p95, ` +
      (result.ratio_p95_to_control_floor_flooded_p95 === null
        ? "no control connection on this tmux, "
        : `${result.ratio_p95_to_control_floor_flooded_p95}x tmux's own p95 under floods, `) +
      `${result.ratio_p95_to_spawned_client_flooded_p50}x one spawned client's p50 under floods`,
  );
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "20" } } });
  const lab = await openLab({ prefix: "tmux-mcp-bench-waits" });
  const client = new Client({ name: "tmux-mcp-bench-waits", version: "1" });
  try {
    const transport = new LineClientTransport(Deno.execPath(), serverArgs(lab.socketName, []));
    await client.connect(transport);
    const call: ProgressCall = async (name, args, onprogress) => {
      const result = await client.callTool({ name, arguments: args }, { onprogress });
      // The payload: the text content is for reading (lib/mcp/tool_result.ts).
      return result.structuredContent;
    };
    // The first general call goes through a spawned client and shows the tmux server runs; the
    // second opens the control connection, as the earlier phases of bench.ts have.
    await call("list_panes", {});
    await call("list_panes", {});
    const result = await benchConcurrentWaits(lab, call, transport.pid, Number(values.rounds));
    printConcurrentWaits(result);
    console.log(JSON.stringify({ concurrent_waits: result }));
  } finally {
    await client.close();
    await lab.close();
  }
}
