// Is tmux_run fast enough to replace what peers do today? This measures it the way a client
// sees it — the server as its own process over real stdio (read the way a Node client reads it:
// bench/line_client_transport.ts), panes a person enrolled with `source` — against the usual
// send-keys + `tmux wait-for` round trip in the same tmux server and against run_command in a
// plain pane, plus how soon wait_for_text notices new output, a full-size output run against a
// bare one (and the same scripts run alone, for the least ratio a server could show:
// bench/scripts_alone.ts), the memory of the server with the maximum of 8 enrolled panes and of
// one helper over 2000 runs, what a watched session's control-mode connection costs while its
// panes write, how soon ten concurrent waits answer while other panes flood output
// (bench/concurrent_waits.ts), and what the MCP SDK costs beside a bare SDK server
// (bench/sdk_cost.ts).
import { Client } from "../lib/dev_deps.ts";
import { LineClientTransport } from "./line_client_transport.ts";
import { benchCommandLine, helperOfPane, serverArgs } from "./server_process.ts";
import { randomHex } from "../lib/util/ids.ts";
import {
  labZshCommand,
  openLab,
  type PrivateLab,
  sourceInPane,
  waitFor,
  waitForPromptIn,
} from "../lib/cli/private_lab.ts";
import { readIdentity } from "../lib/host/processes.ts";
import { runTmux } from "../lib/tmux/tmux.ts";
import { sdkCost } from "./sdk_cost.ts";
import { benchGeneralCalls, benchSearch } from "./general_calls.ts";
import { benchConcurrentWaits, printConcurrentWaits } from "./concurrent_waits.ts";
import { round, summarize, type Summary } from "./stats.ts";
import { benchScriptsAlone, ratioFloors, type ScriptsAlone, trueWindow } from "./scripts_alone.ts";
import { procCounters } from "./proc_stat.ts";

// The server runs with the V8 flags README.md recommends; `--server-v8-flags=` runs it without.
const { v8Flags } = benchCommandLine();
const ENROLLED_PANES = 8;
const WARMUP = 20;
const TIMED = 200;
const WAKE_RUNS = 40;
const CONCURRENT_WAIT_ROUNDS = 20;
// The bench's Enter lands at a random moment within this, so it meets a wait without control mode
// (tmux before 3.7) at any phase of its probes (PROBE_MS in lib/tmux/output_watch.ts, 40 ms).
const WAIT_POLL_MS = 100;
const HELPER_RUNS = 2000;
const HELPER_EARLY_RUN = 100;
const FLOOD_BYTES = 4 * 1024 * 1024;
// With 20 timed runs the pipelines' p50 moved between 2.86x and 3.6x a bare `true` from one run of
// the bench to the next on the same code: their four process starts are what a shared machine
// disturbs most. 100 runs cost two seconds.
const BIG_RUNS = 100;
const BIG_BYTES = 262144;
const BIG_SCRIPT = `head -c ${BIG_BYTES} /dev/zero | tr '\\0' a; ` +
  `head -c ${BIG_BYTES} /dev/zero | tr '\\0' b >&2`;
// The same output from one process, without the four extra processes of the pipelines.
const BIG_SCRIPT_ONE_PROCESS =
  `perl -e 'print "a" x ${BIG_BYTES}; print STDERR "b" x ${BIG_BYTES}'`;
// Each run of the scripts alone (bench/scripts_alone.ts) costs about 35 ms on these VMs.
const ALONE_RUNS = 40;

// deno-lint-ignore no-explicit-any
type Payload = any;

type Mcp = {
  client: Client;
  pid: number;
  generation: string;
  call: (
    name: string,
    args?: Record<string, unknown>,
    onprogress?: () => void,
  ) => Promise<Payload>;
};

/** `count` new windows in the lab, each a zsh at its prompt. */
async function zshPanes(lab: PrivateLab, count: number): Promise<string[]> {
  const panes: string[] = [];
  for (let i = 0; i < count; i++) {
    const zsh = labZshCommand(lab.dir);
    panes.push(await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", "--", ...zsh));
  }
  for (const pane of panes) await waitForPromptIn(lab.tmuxCmd, pane);
  return panes;
}

/** The server as a separate process on stdio, inviting each pane with its own setup file. */
async function startServer(lab: PrivateLab, panes: string[]): Promise<Mcp> {
  const invitations = panes.map((pane, i): [string, string] => [pane, setupFile(lab, i)]);
  // It inherits the whole environment, so the server finds the same Deno cache as this process.
  const transport = new LineClientTransport(
    Deno.execPath(),
    serverArgs(lab.socketName, invitations, v8Flags),
  );
  const client = new Client({ name: "tmux-mcp-bench", version: "1" });
  await client.connect(transport);
  const call = async (
    name: string,
    args: Record<string, unknown> = {},
    onprogress?: () => void,
  ) => {
    const result = await client.callTool({ name, arguments: args }, { onprogress });
    // The payload: the text content is for reading (lib/mcp/tool_result.ts).
    // deno-lint-ignore no-explicit-any
    return result.structuredContent as any;
  };
  const capabilities = await call("tmux_capabilities").catch((error) => ({ ok: false, error }));
  if (!capabilities.ok) {
    await client.close();
    throw new Error(`tmux_capabilities failed: ${JSON.stringify(capabilities)}`);
  }
  return { client, pid: transport.pid, generation: capabilities.data.generation, call };
}

function setupFile(lab: PrivateLab, index: number): string {
  return `${lab.dir}/setup-${index}`;
}

/** Enrolls each pane as a person would: types `source FILE` and presses Enter. */
async function enroll(lab: PrivateLab, mcp: Mcp, panes: string[]): Promise<void> {
  for (const [i, pane] of panes.entries()) {
    const file = setupFile(lab, i);
    await waitFor(`the setup file ${file}`, () => Deno.stat(file).then(() => true, () => false));
    await sourceInPane(lab, file, pane);
  }
  let missing = panes;
  await waitFor("every pane to be enrolled", async () => {
    const capabilities = await mcp.call("tmux_capabilities");
    const enrolled = new Set(capabilities.data.enrolled_panes.map((p: Payload) => p.pane_id));
    missing = panes.filter((pane) => !enrolled.has(pane));
    return missing.length === 0;
  }, 60_000).catch(async (error) => {
    const screens = await Promise.all(
      missing.map(async (pane) =>
        `${pane}:\n${await lab.tmuxCmd("capture-pane", "-p", "-t", pane)}`
      ),
    );
    throw new Error(`${error.message}; the panes not enrolled show:\n${screens.join("\n")}`);
  });
  for (const pane of panes) await waitForPromptIn(lab.tmuxCmd, pane);
}

async function tmuxRun(mcp: Mcp, pane: string, script: string, extra = {}): Promise<Payload> {
  const payload = await mcp.call("tmux_run", {
    target: { kind: "pane", id: pane, generation: mcp.generation },
    script,
    ...extra,
  });
  if (!payload.ok || payload.data.completion.exit_status !== 0) {
    throw new Error(`tmux_run failed: ${JSON.stringify(payload).slice(0, 500)}`);
  }
  return payload;
}

/** Runs `once` WARMUP times untimed, then returns the durations of `runs` timed calls. */
async function measure(
  runs: number,
  once: (i: number) => Promise<void>,
  between?: (i: number) => Promise<void>,
): Promise<number[]> {
  const durations: number[] = [];
  for (let i = -WARMUP; i < runs; i++) {
    const start = performance.now();
    await once(i);
    if (i >= 0) durations.push(performance.now() - start);
    await between?.(i);
  }
  return durations;
}

/**
 * Untimed between runs in a plain pane: let the prompt come back, and keep the history short,
 * since run_command and wait_for_text read the pane's whole history on every look.
 */
function settle(lab: PrivateLab, pane: string) {
  return async (i: number) => {
    await waitForPromptIn(lab.tmuxCmd, pane);
    if (i % 20 === 0) await lab.tmuxCmd("clear-history", "-t", pane);
  };
}

/** The peer mechanism: type the command plus `tmux wait-for -S`, block on `wait-for`. */
async function benchBaseline(lab: PrivateLab, pane: string): Promise<number[]> {
  const signalled = async (i: number) => {
    const channel = `bench-${i + WARMUP}`;
    // A signal that arrives before the waiter is kept by tmux, so there is no race here.
    const waiter = runTmux(lab.tmux, ["wait-for", channel]);
    const line = `true; tmux -L ${lab.socketName} wait-for -S ${channel}`;
    await lab.tmuxCmd("send-keys", "-t", pane, "-l", line);
    await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
    const result = await waiter;
    if (result.code !== 0) throw new Error(`tmux wait-for failed: ${result.stderr}`);
  };
  return await measure(TIMED, signalled, settle(lab, pane));
}

async function benchRunCommand(lab: PrivateLab, mcp: Mcp, pane: string): Promise<number[]> {
  const once = async () => {
    const payload = await mcp.call("run_command", { pane_id: pane, command: "true" });
    if (!payload.ok || payload.data.exit_status !== 0 || payload.data.timed_out) {
      throw new Error(`run_command failed: ${JSON.stringify(payload).slice(0, 500)}`);
    }
  };
  return await measure(TIMED, once, settle(lab, pane));
}

/**
 * From the moment the keystroke that prints a fresh token is delivered to the moment
 * wait_for_text answers with it. The wait is started first and announces with its first
 * progress notification that it is watching; the typed line spells the token in two pieces so
 * its echo cannot match, and Enter comes after a random pause so it lands anywhere in the poll.
 */
async function wakeUp(lab: PrivateLab, mcp: Mcp, pane: string, i: number): Promise<number> {
  const token = `WAKE_${i}_${randomHex(4)}`;
  let watching!: () => void;
  const begun = new Promise<void>((resolve) => watching = resolve);
  const answer = mcp.call(
    "wait_for_text",
    { pane_id: pane, patterns: [token], timeout: 10 },
    () => watching(),
  );
  await Promise.race([
    begun,
    answer.then((payload) => {
      throw new Error(`wait_for_text ended before it began: ${JSON.stringify(payload)}`);
    }),
  ]);
  await lab.tmuxCmd("send-keys", "-t", pane, "-l", `printf '%s%s\\n' WA ${token.slice(2)}`);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * WAIT_POLL_MS));
  await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
  const start = performance.now();
  const payload = await answer;
  const elapsed = performance.now() - start;
  if (!payload.ok || payload.data.outcome !== "matched" || payload.data.matched_text !== token) {
    throw new Error(`wait_for_text did not match: ${JSON.stringify(payload).slice(0, 500)}`);
  }
  return elapsed;
}

async function benchWakeUp(lab: PrivateLab, mcp: Mcp, pane: string): Promise<number[]> {
  const durations: number[] = [];
  const between = settle(lab, pane);
  for (let i = 0; i < WAKE_RUNS; i++) {
    durations.push(await wakeUp(lab, mcp, pane, i));
    await between(i);
  }
  return durations;
}

async function benchBigOutput(mcp: Mcp, pane: string, script = BIG_SCRIPT): Promise<number[]> {
  const limits = { stdout_limit: BIG_BYTES, stderr_limit: BIG_BYTES };
  return await measure(BIG_RUNS, async () => {
    const { data } = await tmuxRun(mcp, pane, script, limits);
    if (data.stdout.bytes !== BIG_BYTES || data.stderr.bytes !== BIG_BYTES) {
      throw new Error(
        `expected ${BIG_BYTES} bytes each, got ${data.stdout.bytes}/${data.stderr.bytes}`,
      );
    }
  });
}

/** A process's resident memory now (VmRSS) or at its peak (VmHWM), in MiB. */
async function memoryMiB(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
  return round(kib / 1024);
}

/** Concurrent runs on every enrolled pane, then the server's resident memory, now and at peak. */
async function serverMemory(mcp: Mcp, panes: string[]): Promise<{ rss: number; peak: number }> {
  const limits = { stdout_limit: BIG_BYTES, stderr_limit: BIG_BYTES };
  for (let pass = 0; pass < 3; pass++) {
    await Promise.all(panes.map((pane) => tmuxRun(mcp, pane, "true")));
    await Promise.all(panes.map((pane) => tmuxRun(mcp, pane, BIG_SCRIPT, limits)));
  }
  return { rss: await memoryMiB(mcp.pid, "VmRSS"), peak: await memoryMiB(mcp.pid, "VmHWM") };
}

/** A helper's resident memory after its 100th and its 2000th run of `true`. */
async function helperMemory(pid: number, mcp: Mcp, pane: string) {
  const before = await memoryMiB(pid, "VmRSS");
  let early = 0;
  for (let i = 1; i <= HELPER_RUNS; i++) {
    await tmuxRun(mcp, pane, "true");
    if (i === HELPER_EARLY_RUN) early = await memoryMiB(pid, "VmRSS");
  }
  const late = await memoryMiB(pid, "VmRSS");
  return { before, early, late, peak: await memoryMiB(pid, "VmHWM") };
}

/** CPU ms a process has used (utime + stime). */
async function cpuMs(pid: number): Promise<number> {
  return (await procCounters(pid)).cpuMs;
}

/**
 * `calls` tool calls made by `step`, with where they spent CPU: each process's part per call
 * (the helper's children: those it waited for, each script's `sh`, and where the helper forks
 * instead of its launcher, the forked child that becomes it).
 */
async function withCpuPerCall<T>(
  pids: { server: number; helper: number; zsh: number; tmux: number },
  calls: number,
  step: () => Promise<T>,
): Promise<{ value: T; cpuPerCall: Record<string, number> }> {
  const read = async (): Promise<Record<string, number>> => {
    const helper = await procCounters(pids.helper);
    return {
      server: await cpuMs(pids.server),
      helper: helper.cpuMs,
      helper_children: helper.childCpuMs,
      zsh: await cpuMs(pids.zsh),
      tmux: await cpuMs(pids.tmux),
    };
  };
  const before = await read();
  const value = await step();
  const after = await read();
  const cpuPerCall = Object.fromEntries(
    Object.entries(after).map(([name, ms]) => [name, round((ms - before[name]) / calls)]),
  );
  return { value, cpuPerCall };
}

/**
 * What a control-mode connection costs while the panes of its session write: CPU of the tmux
 * server and of the MCP server per MiB of pane output, in a session no connection is attached
 * to, in one that has a connection but nobody waits on the writing pane (its output is
 * paused), and while a wait_for_text watches that pane for the whole flood.
 */
async function controlCost(lab: PrivateLab, mcp: Mcp) {
  const session = await lab.tmuxCmd(
    "new-session",
    "-d",
    "-P",
    "-F",
    "#{session_id}",
    "--",
    ...labZshCommand(lab.dir),
  );
  const pane = await lab.tmuxCmd("display-message", "-p", "-t", session, "#{pane_id}");
  await waitForPromptIn(lab.tmuxCmd, pane);
  const tmuxPid = Number(await lab.tmuxCmd("display-message", "-p", "#{pid}"));
  const flood = async (pass: number, watch: boolean) => {
    const channel = `flood-${pass}`;
    const signalled = runTmux(lab.tmux, ["wait-for", channel]);
    const line = `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' x | fold -w 200; ` +
      `printf '%s%s\\n' FLOOD_ DONE_${pass}; tmux -L ${lab.socketName} wait-for -S ${channel}`;
    await waitForPromptIn(lab.tmuxCmd, pane);
    await lab.tmuxCmd("clear-history", "-t", pane);
    const before = { tmux: await cpuMs(tmuxPid), mcp: await cpuMs(mcp.pid) };
    const waiting = watch
      ? mcp.call("wait_for_text", { pane_id: pane, patterns: [`FLOOD_DONE_${pass}`], timeout: 60 })
      : null;
    await lab.tmuxCmd("send-keys", "-t", pane, "-l", line);
    await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
    await signalled;
    const waited = await waiting;
    if (waiting && waited.data?.outcome !== "matched") {
      throw new Error(`wait_for_text missed the flood's end: ${JSON.stringify(waited)}`);
    }
    const mib = FLOOD_BYTES / 1048576;
    return {
      tmux: round(((await cpuMs(tmuxPid)) - before.tmux) / mib),
      mcp: round(((await cpuMs(mcp.pid)) - before.mcp) / mib),
    };
  };
  const noConnection = await flood(0, false);
  await mcp.call("wait_for_text", { pane_id: pane, patterns: ["never"], timeout: 0.2 });
  // Past the grace after which a pane nobody waits on is paused (WATCH_GRACE_MS).
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const silenced = await flood(1, false);
  const watched = await flood(2, true);
  const clients = await lab.tmuxCmd("list-clients", "-F", "#{client_control_mode} #{client_pid}");
  const controlPids = clients.split("\n").filter((l) => l.startsWith("1 ")).map((l) =>
    Number(l.slice(2))
  );
  return {
    connections: controlPids.length,
    // Before tmux 3.7 the server opens no control connection (docs/tmux_versions.md).
    clientRssMiB: controlPids.length > 0 ? await memoryMiB(controlPids[0], "VmRSS") : null,
    noConnection,
    silenced,
    watched,
  };
}

async function stopServer(mcp: Mcp): Promise<void> {
  // Closing the client closes the server's stdin, which is how a stdio server is told to exit.
  await mcp.client.close();
  await waitFor("the server process to exit", async () => await readIdentity(mcp.pid) === null);
}

type Results = {
  run: Summary;
  runCpu: Record<string, number>;
  runCommand: Summary;
  baseline: Summary;
  wakeUp: Summary;
  big: Summary;
  bigOneProcess: Summary;
  alone: ScriptsAlone;
  server: { idleRss: number; rss: number; peak: number; phases: Record<string, number> };
  helper: { atEnrollment: number; before: number; early: number; late: number; peak: number };
  control: Awaited<ReturnType<typeof controlCost>>;
  general: Awaited<ReturnType<typeof benchGeneralCalls>> & {
    search_panes: Awaited<ReturnType<typeof benchSearch>>[];
  };
  concurrentWaits: Awaited<ReturnType<typeof benchConcurrentWaits>>;
  sdk: Awaited<ReturnType<typeof sdkCost>>;
};

function report(results: Results): void {
  const ratio = round(results.run.p50 / results.baseline.p50);
  const runCommandRatio = round(results.runCommand.p50 / results.baseline.p50);
  const bigRatio = round(results.big.p50 / results.run.p50);
  const bigOneProcessRatio = round(results.bigOneProcess.p50 / results.run.p50);
  const floors = ratioFloors(results.alone, results.run.p50);
  const trueRange = trueWindow(results.alone, "pipelines", results.baseline.p50, {
    toBaseline: 0.4,
    bigToTrue: 3,
  });
  const helperGrowth = round(results.helper.late / results.helper.early);
  console.log(`round trips for \`true\` (${TIMED} timed after ${WARMUP} warm-up, ms)`);
  console.table({
    "tmux_run (enrolled pane)": results.run,
    "run_command (plain pane)": results.runCommand,
    "send-keys + wait-for (plain pane)": results.baseline,
  });
  console.log(`ratio of p50 (tmux_run / send-keys + wait-for): ${ratio}`);
  console.log(`CPU ms per tmux_run of \`true\`, by process: ${JSON.stringify(results.runCpu)}`);
  console.log(`ratio of p50 (run_command / send-keys + wait-for): ${runCommandRatio}`);
  console.log(`wait_for_text wake-up after the output's Enter (${WAKE_RUNS} runs, ms)`);
  console.table({ "wait_for_text": results.wakeUp });
  console.log(
    `256 KiB stdout + 256 KiB stderr, p50 of ${BIG_RUNS}: ${results.big.p50} ms ` +
      `(${bigRatio}x a bare \`true\`); written by one perl process: ` +
      `${results.bigOneProcess.p50} ms (${bigOneProcessRatio}x)`,
  );
  console.log(
    `the same scripts alone (sh -c from the bench, ${ALONE_RUNS} runs, p50 ms): ` +
      `${JSON.stringify(results.alone)}; least ratio to tmux_run \`true\` a server adding ` +
      `nothing for the output could show: ${JSON.stringify(floors)}`,
  );
  console.log(
    `tmux_run \`true\` p50 that meets both ≤ 0.4x the baseline and, for the pipelines alone, ` +
      `≤ 3x \`true\`: from ${trueRange.at_least_ms} to ${trueRange.at_most_ms} ms ` +
      `(${trueRange.open ? "open" : "empty: no server can meet both in this run"})`,
  );
  console.log(
    `server RSS with ${ENROLLED_PANES} enrolled panes: ${results.server.idleRss} MiB before any ` +
      `run, ${results.server.rss} MiB after them, ${results.server.peak} MiB at peak`,
  );
  console.log(`server RSS after each phase (MiB): ${JSON.stringify(results.server.phases)}`);
  console.log(
    `helper RSS: ${results.helper.atEnrollment} MiB at enrollment, ${results.helper.before} MiB ` +
      `before ${HELPER_RUNS} runs, ${results.helper.early} MiB after run ${HELPER_EARLY_RUN}, ` +
      `${results.helper.late} MiB after run ${HELPER_RUNS} (x${helperGrowth}); peak ` +
      `${results.helper.peak} MiB`,
  );
  const c = results.control;
  console.log(`control mode: CPU ms per MiB of pane output (tmux server / MCP server)`);
  console.table({
    "session without a control connection": c.noConnection,
    "session with one, nobody waiting on the pane": c.silenced,
    "a wait_for_text watching the pane": c.watched,
  });
  console.log(
    c.clientRssMiB === null
      ? "no control connection (this tmux gets none)"
      : `${c.connections} control connections; one tmux -C client: ${c.clientRssMiB} MiB RSS`,
  );
  console.log(
    `general calls, p50 as a ratio of one spawned tmux list-panes (${results.general.ms.spawned_list_panes.p50} ms): ` +
      JSON.stringify(results.general.ratio_p50_to_spawned_list_panes),
  );
  printConcurrentWaits(results.concurrentWaits);
  console.log(JSON.stringify({
    server_v8_flags: v8Flags,
    tmux_run_true_ms: results.run,
    tmux_run_true_cpu_ms_per_run: results.runCpu,
    run_command_true_ms: results.runCommand,
    baseline_send_keys_wait_for_ms: results.baseline,
    ratio_p50: ratio,
    run_command_ratio_p50: runCommandRatio,
    wait_for_text_wakeup_ms: results.wakeUp,
    big_output_256k_256k_ms: { p50: results.big.p50 },
    big_output_ratio_to_true_p50: bigRatio,
    big_output_one_process_ms: { p50: results.bigOneProcess.p50 },
    big_output_one_process_ratio_to_true_p50: bigOneProcessRatio,
    big_output_scripts_alone_ms: results.alone,
    big_output_ratio_floor_p50: floors,
    true_p50_window_for_items_5_and_6_ms: trueRange,
    server_rss_mib_8_enrolled_before_runs: results.server.idleRss,
    server_rss_mib_8_enrolled: results.server.rss,
    server_peak_rss_mib_8_enrolled: results.server.peak,
    server_rss_mib_after_phase: results.server.phases,
    helper_rss_mib: {
      at_enrollment: results.helper.atEnrollment,
      before_runs: results.helper.before,
      [`after_run_${HELPER_EARLY_RUN}`]: results.helper.early,
      [`after_run_${HELPER_RUNS}`]: results.helper.late,
      growth: helperGrowth,
      peak: results.helper.peak,
    },
    control_mode_cpu_ms_per_mib_output: {
      no_connection: c.noConnection,
      connection_pane_unwatched: c.silenced,
      pane_watched_by_wait: c.watched,
    },
    control_connections: c.connections,
    control_client_rss_mib: c.clientRssMiB,
    general_calls: results.general,
    concurrent_waits: results.concurrentWaits,
    sdk_cost: results.sdk,
  }));
}

async function main(): Promise<void> {
  const lab = await openLab();
  try {
    // The lab's own pane and seven new ones are enrolled; three more stay plain zsh.
    const added = await zshPanes(lab, ENROLLED_PANES + 2);
    const enrolled = [lab.pane, ...added.slice(0, ENROLLED_PANES - 1)];
    const [runCommandPane, baselinePane, wakeUpPane] = added.slice(ENROLLED_PANES - 1);
    const mcp = await startServer(lab, enrolled);
    try {
      await enroll(lab, mcp, enrolled);
      const idleRss = await memoryMiB(mcp.pid, "VmRSS");
      const helperPidOfPane = await helperOfPane(lab, enrolled[1]);
      const helperAtEnrollment = await memoryMiB(helperPidOfPane, "VmRSS");
      // The server's RSS after each phase, to see which one makes it grow.
      const phases: Record<string, number> = {};
      const phase = async <T>(name: string, step: () => Promise<T>): Promise<T> => {
        const value = await step();
        phases[name] = await memoryMiB(mcp.pid, "VmRSS");
        return value;
      };
      const tmuxRunPids = {
        server: mcp.pid,
        helper: await helperOfPane(lab, enrolled[0]),
        zsh: Number(await lab.tmuxCmd("display-message", "-p", "-t", enrolled[0], "#{pane_pid}")),
        tmux: Number(await lab.tmuxCmd("display-message", "-p", "#{pid}")),
      };
      const { value: runDurations, cpuPerCall: runCpu } = await phase(
        "tmux_run",
        () =>
          withCpuPerCall(
            tmuxRunPids,
            WARMUP + TIMED,
            () => measure(TIMED, () => tmuxRun(mcp, enrolled[0], "true")),
          ),
      );
      const run = summarize(runDurations);
      const runCommand = summarize(
        await phase("run_command", () => benchRunCommand(lab, mcp, runCommandPane)),
      );
      const baseline = summarize(await benchBaseline(lab, baselinePane));
      const wakeUp = summarize(
        await phase("wait_for_text", () => benchWakeUp(lab, mcp, wakeUpPane)),
      );
      const big = summarize(await phase("big_output", () => benchBigOutput(mcp, enrolled[0])));
      const bigOneProcess = summarize(
        await phase(
          "big_output_one_process",
          () => benchBigOutput(mcp, enrolled[0], BIG_SCRIPT_ONE_PROCESS),
        ),
      );
      const alone = await benchScriptsAlone(
        { pipelines: BIG_SCRIPT, one_process: BIG_SCRIPT_ONE_PROCESS },
        ALONE_RUNS,
      );
      const server = await phase("8_concurrent", () => serverMemory(mcp, enrolled));
      const helper = {
        atEnrollment: helperAtEnrollment,
        ...await helperMemory(helperPidOfPane, mcp, enrolled[1]),
      };
      const control = await controlCost(lab, mcp);
      const general = {
        ...await benchGeneralCalls(lab, mcp.call, TIMED),
        search_panes: [
          await benchSearch(lab, mcp.call, 40, 40),
          await benchSearch(lab, mcp.call, 100, 20),
        ],
      };
      const concurrentWaits = await phase(
        "concurrent_waits",
        () => benchConcurrentWaits(lab, mcp.call, mcp.pid, CONCURRENT_WAIT_ROUNDS),
      );
      const sdk = await sdkCost();
      report({
        run,
        runCpu,
        runCommand,
        baseline,
        wakeUp,
        big,
        bigOneProcess,
        alone,
        server: { idleRss, ...server, phases },
        helper,
        control,
        general,
        concurrentWaits,
        sdk,
      });
    } finally {
      await stopServer(mcp);
    }
  } finally {
    await lab.close();
  }
}

await main();
