// Is tmux_run fast enough to replace what peers do today? This measures it the way a client
// sees it — the server as its own process over real stdio, panes a person enrolled with
// `source` — against the usual send-keys + `tmux wait-for` round trip in the same tmux server,
// plus a full-size output run and the server's peak memory with the maximum of 8 enrolled panes.
import { Client, StdioClientTransport } from "../tests/test_deps.ts";
import {
  type Payload,
  processExists,
  waitFor,
  waitForPrompt,
  zshCommand,
} from "../tests/harness.ts";
import { randomHex } from "../lib/ids.ts";
import { runTmux, socketPath, type TmuxClient } from "../lib/tmux.ts";

const MAIN_PATH = new URL("../main.ts", import.meta.url).pathname;
const ENROLLED_PANES = 8;
const WARMUP = 20;
const TIMED = 200;
const BIG_RUNS = 20;
const BIG_BYTES = 262144;
const BIG_SCRIPT = `head -c ${BIG_BYTES} /dev/zero | tr '\\0' a; ` +
  `head -c ${BIG_BYTES} /dev/zero | tr '\\0' b >&2`;

type Lab = {
  dir: string;
  socketName: string;
  tmux: TmuxClient;
  tmuxCmd: (...args: string[]) => Promise<string>;
};

type Mcp = {
  client: Client;
  pid: number;
  generation: string;
  call: (name: string, args?: Record<string, unknown>) => Promise<Payload>;
};

type Summary = { p50: number; p95: number };

/** A private tmux server whose first window holds a zsh at the `lab#` prompt. */
async function startLab(): Promise<Lab> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-bench-" });
  const socketName = `tmux-mcp-bench-${randomHex(6)}`;
  const tmux: TmuxClient = { bin: "tmux", socket: { kind: "name", name: socketName } };
  const tmuxCmd = async (...args: string[]) => {
    const result = await runTmux(tmux, args);
    if (result.code !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout.trim();
  };
  const lab = { dir, socketName, tmux, tmuxCmd };
  try {
    await Deno.mkdir(`${dir}/zdotdir`);
    await Deno.mkdir(`${dir}/home`);
    await Deno.writeTextFile(`${dir}/zdotdir/.zshrc`, "PROMPT='lab%# '\n");
    const size = ["-x", "160", "-y", "40"];
    await tmuxCmd("-f", "/dev/null", "new-session", "-d", ...size, "--", ...zshCommand(dir));
  } catch (error) {
    await stopLab(lab);
    throw error;
  }
  return lab;
}

/** The pane of the first window plus `extra` new windows, each a zsh at its prompt. */
async function zshPanes(lab: Lab, extra: number): Promise<string[]> {
  const panes = [await lab.tmuxCmd("display-message", "-p", "-t", "$0", "#{pane_id}")];
  for (let i = 0; i < extra; i++) {
    panes.push(
      await lab.tmuxCmd("new-window", "-d", "-P", "-F", "#{pane_id}", "--", ...zshCommand(lab.dir)),
    );
  }
  for (const pane of panes) await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
  return panes;
}

async function stopLab(lab: Lab): Promise<void> {
  await runTmux(lab.tmux, ["kill-server"]).catch(() => {});
  await waitFor("the tmux server to exit", async () => {
    return (await runTmux(lab.tmux, ["list-sessions"])).code !== 0;
  });
  // kill-server leaves the socket file behind.
  await Deno.remove(socketPath(lab.tmux.socket)).catch(() => {});
  await Deno.remove(lab.dir, { recursive: true }).catch(() => {});
}

/** The server as a separate process on stdio, inviting each pane with its own setup file. */
async function startServer(lab: Lab, panes: string[]): Promise<Mcp> {
  const invitations = panes.flatMap((pane, i) => ["--enroll-pane", `${pane}=${setupFile(lab, i)}`]);
  const transport = new StdioClientTransport({
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-all",
      MAIN_PATH,
      "--socket-name",
      lab.socketName,
      "--enable-tool",
      "tmux_run",
      ...invitations,
    ],
    // The whole environment, so the server finds the same Deno cache as this process.
    env: Deno.env.toObject(),
  });
  const client = new Client({ name: "tmux-mcp-bench", version: "1" });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args });
    return JSON.parse((result.content as { text: string }[])[0].text);
  };
  const capabilities = await call("tmux_capabilities").catch((error) => ({ ok: false, error }));
  if (!capabilities.ok) {
    await client.close();
    throw new Error(`tmux_capabilities failed: ${JSON.stringify(capabilities)}`);
  }
  return { client, pid: transport.pid!, generation: capabilities.data.generation, call };
}

function setupFile(lab: Lab, index: number): string {
  return `${lab.dir}/setup-${index}`;
}

/** Enrolls each pane as a person would: types `source FILE` and presses Enter. */
async function enroll(lab: Lab, mcp: Mcp, panes: string[]): Promise<void> {
  for (const [i, pane] of panes.entries()) {
    const file = setupFile(lab, i);
    await waitFor(`the setup file ${file}`, () => Deno.stat(file).then(() => true, () => false));
    await lab.tmuxCmd("send-keys", "-t", pane, "-l", `source ${file}`);
    await lab.tmuxCmd("send-keys", "-t", pane, "Enter");
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
  for (const pane of panes) await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
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

function percentile(durations: number[], q: number): number {
  const sorted = durations.toSorted((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

function summarize(durations: number[]): Summary {
  return { p50: round(percentile(durations, 0.5)), p95: round(percentile(durations, 0.95)) };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

/** The peer mechanism: type the command plus `tmux wait-for -S`, block on `wait-for`. */
async function benchBaseline(lab: Lab, pane: string): Promise<number[]> {
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
  // Untimed: let the prompt come back and keep the history short.
  const settle = async (i: number) => {
    await waitForPrompt({ tmuxCmd: lab.tmuxCmd, pane });
    if (i % 50 === 0) await lab.tmuxCmd("clear-history", "-t", pane);
  };
  return await measure(TIMED, signalled, settle);
}

async function benchBigOutput(mcp: Mcp, pane: string): Promise<number[]> {
  const limits = { stdout_limit: BIG_BYTES, stderr_limit: BIG_BYTES };
  return await measure(BIG_RUNS, async () => {
    const { data } = await tmuxRun(mcp, pane, BIG_SCRIPT, limits);
    if (data.stdout.bytes !== BIG_BYTES || data.stderr.bytes !== BIG_BYTES) {
      throw new Error(
        `expected ${BIG_BYTES} bytes each, got ${data.stdout.bytes}/${data.stderr.bytes}`,
      );
    }
  });
}

/** Concurrent runs on every enrolled pane, then the server's high-water mark of resident memory. */
async function peakRssMiB(mcp: Mcp, panes: string[]): Promise<number> {
  const limits = { stdout_limit: BIG_BYTES, stderr_limit: BIG_BYTES };
  for (let pass = 0; pass < 3; pass++) {
    await Promise.all(panes.map((pane) => tmuxRun(mcp, pane, "true")));
    await Promise.all(panes.map((pane) => tmuxRun(mcp, pane, BIG_SCRIPT, limits)));
  }
  const status = await Deno.readTextFile(`/proc/${mcp.pid}/status`);
  const kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]);
  return round(kib / 1024);
}

async function stopServer(mcp: Mcp): Promise<void> {
  // Closing the client closes the server's stdin, which is how a stdio server is told to exit.
  await mcp.client.close();
  await waitFor("the server process to exit", async () => !await processExists(mcp.pid));
}

function report(results: {
  run: Summary;
  baseline: Summary;
  big: Summary;
  rssMiB: number;
}): void {
  const ratio = round(results.run.p50 / results.baseline.p50);
  console.log(`tmux_run round trips (${TIMED} timed after ${WARMUP} warm-up, ms)`);
  console.table({
    "tmux_run `true`": results.run,
    "send-keys + wait-for `true`": results.baseline,
  });
  console.log(`ratio of p50 (tmux_run / send-keys + wait-for): ${ratio}`);
  console.log(`256 KiB stdout + 256 KiB stderr, p50 of ${BIG_RUNS}: ${results.big.p50} ms`);
  console.log(
    `server peak RSS (VmHWM) with ${ENROLLED_PANES} enrolled panes: ${results.rssMiB} MiB`,
  );
  console.log(JSON.stringify({
    tmux_run_true_ms: results.run,
    baseline_send_keys_wait_for_ms: results.baseline,
    ratio_p50: ratio,
    big_output_256k_256k_ms: { p50: results.big.p50 },
    server_peak_rss_mib_8_enrolled: results.rssMiB,
  }));
}

async function main(): Promise<void> {
  const lab = await startLab();
  try {
    // Eight panes to enroll, and one more that stays a plain zsh for the baseline.
    const panes = await zshPanes(lab, ENROLLED_PANES);
    const enrolled = panes.slice(0, ENROLLED_PANES);
    const plain = panes[ENROLLED_PANES];
    const mcp = await startServer(lab, enrolled);
    try {
      await enroll(lab, mcp, enrolled);
      const run = summarize(await measure(TIMED, () => tmuxRun(mcp, enrolled[0], "true")));
      const baseline = summarize(await benchBaseline(lab, plain));
      const big = summarize(await benchBigOutput(mcp, enrolled[0]));
      const rssMiB = await peakRssMiB(mcp, enrolled);
      report({ run, baseline, big, rssMiB });
    } finally {
      await stopServer(mcp);
    }
  } finally {
    await stopLab(lab);
  }
}

await main();
