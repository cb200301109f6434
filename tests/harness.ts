// Real tmux, real zsh, a real MCP client. Each test gets a private tmux server (-L with a
// unique name, -f /dev/null), a zsh with ZDOTDIR in a temp dir and a clean environment, and a
// teardown that proves nothing is left: no tmux server, socket, helper process or temp file.
// This is the one place a test builds a server and a client (withConnectedServer) and checks
// a tool result (callTool); withServer and general_session.ts's withGeneral are views on it.
import { Client, InMemoryTransport } from "./test_deps.ts";
import { serveStdio } from "../lib/deps.ts";
import { parseCommandLine } from "../lib/server/config.ts";
import { randomHex } from "../lib/util/ids.ts";
import { type RunningServer, startServer } from "../lib/server/server.ts";
import type { ServerContext } from "../lib/tools/context.ts";
import type { RunHooks } from "../lib/run/run.ts";
import { socketPath, type TmuxClient } from "../lib/tmux/tmux.ts";
import { childrenOf, processExists } from "../lib/host/processes.ts";
import {
  denoTrustEnvironment,
  labZshCommand,
  openLab,
  type PrivateLab,
  sourceInPane,
  waitFor,
  waitForPromptIn,
} from "../lib/cli/private_lab.ts";
import type { JsonSchema } from "../lib/mcp/schemas.ts";
import { schemas } from "../lib/run/contract.ts";
import { CATALOG } from "../lib/server/catalog.ts";
import { toCallToolResult } from "../lib/mcp/tool_result.ts";
import { ajvAccepts, validationErrors } from "./schema_oracle.ts";
import assert from "node:assert/strict";

// MCP clients start servers with a bare environment: no locale at all. The tests run the server
// (in this process, and every tmux client it starts) the same way, whatever the shell that
// started `deno test` had; locale-specific cases set their own variables on a child process.
for (const name of Object.keys(Deno.env.toObject())) {
  if (name === "LANG" || name === "LANGUAGE" || name.startsWith("LC_")) Deno.env.delete(name);
}

export type Lab = PrivateLab;
export { processExists, waitFor };

/**
 * The tests of the control-mode machinery itself run it on every tmux, as a person who chose
 * `--control-mode always` would (lib/tmux/versions.ts: by default only tmux 3.7 and newer have
 * it): the lab's client with that choice, and the server flag that makes it.
 */
export function controlAlways(lab: Lab): TmuxClient {
  return { ...lab.tmux, controlMode: "always" };
}
export const CONTROL_ALWAYS = ["--control-mode", "always"];

/** A private tmux server with one zsh pane at an idle prompt, checked for leftovers after. */
export async function withLab(fn: (lab: Lab) => Promise<void>, zshrc = ""): Promise<void> {
  const lab = await openLab({ prefix: "tmux-mcp-test", zshrc });
  let helperPids: number[] = [];
  try {
    await fn(lab);
    helperPids = await helperProcessesUnder(lab.tmuxCmd).catch(() => []);
  } finally {
    await lab.close();
  }
  await assert.rejects(Deno.lstat(socketPath(lab.tmux.socket)), "the tmux socket is left behind");
  await assert.rejects(Deno.lstat(lab.dir), "the test directory is left behind");
  for (const pid of helperPids) {
    await waitFor("the helper process to exit", async () => !await processExists(pid));
  }
}

/**
 * The children of `pid`, each with its argv as /proc has it: null for one that ended before it
 * could be read (the process table has no command lines).
 */
export async function childrenWithArgv(
  pid = Deno.pid,
): Promise<{ pid: number; argv: string[] | null }[]> {
  return await Promise.all((await childrenOf(pid)).map(async (child) => {
    const argv = await Deno.readTextFile(`/proc/${child}/cmdline`).catch(() => null);
    return { pid: child, argv: argv === null ? null : argv.replace(/\0$/, "").split("\0") };
  }));
}

/**
 * A helper's launcher (lib/run/helper.pl): its one child between runs, where it starts (Linux),
 * named `tmux-mcp launcher` by perl's `$0`.
 */
export async function launcherOf(helperPid: number): Promise<number[]> {
  return (await childrenWithArgv(helperPid))
    .filter(({ argv }) => argv?.[0]?.startsWith("tmux-mcp launcher"))
    .map(({ pid }) => pid);
}

/** Whether `argv` is a private directory's guard (lib/host/directory_guard.ts). */
export function isDirectoryGuard(argv: string[] | null): boolean {
  return argv?.includes("tmux-mcp-directory-guard") ?? false;
}

/**
 * This process's children other than the private directories' guards (a `sh` each in-process
 * server keeps for its life: lib/host/directory_guard.ts): the tmux clients it started.
 */
export async function childrenBesideGuards(): Promise<number[]> {
  return (await childrenWithArgv()).filter(({ argv }) => !isDirectoryGuard(argv))
    .map(({ pid }) => pid);
}

export function zshCommand(dir: string): string[] {
  return labZshCommand(dir);
}

export async function waitForPrompt(lab: Pick<Lab, "tmuxCmd" | "pane">): Promise<void> {
  await waitForPromptIn(lab.tmuxCmd, lab.pane);
}

async function helperProcessesUnder(tmuxCmd: Lab["tmuxCmd"]): Promise<number[]> {
  const pids = (await tmuxCmd("list-panes", "-a", "-F", "#{pane_pid}")).split("\n").map(Number);
  return (await Promise.all(pids.map(childrenOf))).flat();
}

export type Session = {
  server: RunningServer;
  client: Client;
  generation: string;
  call: (name: string, args?: Record<string, unknown>, signal?: AbortSignal) => Promise<Payload>;
  run: (script: string, extra?: Record<string, unknown>) => Promise<Payload>;
  enroll: (pane?: string) => Promise<void>;
  setupFile: string;
};

// deno-lint-ignore no-explicit-any
export type Payload = any;

/** How a test starts a server: flags and LIBTMUX_* variables as a person would give them. */
export type ServerSetup = {
  flags?: string[];
  env?: Record<string, string>;
  hooks?: RunHooks;
  /** $TMUX/$TMUX_PANE as the server should see them; unset keeps this process's own. */
  caller?: ServerContext["caller"];
  /** How the client picks the protocol era (the SDK client's modes); unset: `legacy`. */
  negotiation?: "legacy" | "auto";
};

export type Connected = { server: RunningServer; client: Client };

/**
 * The one way tests build a server: in-process on the lab's tmux server, an SDK client
 * connected over memory, both closed afterwards, and the server's private directory checked
 * to be gone.
 */
export async function withConnectedServer(
  lab: Lab,
  setup: ServerSetup,
  fn: (connected: Connected) => Promise<void>,
): Promise<void> {
  const parsed = parseCommandLine(
    ["--socket-name", lab.socketName, ...(setup.flags ?? [])],
    setup.env ?? {},
  );
  assert.ok("config" in parsed);
  const server = await startServer(parsed.config, {
    hooks: setup.hooks ?? {},
    caller: setup.caller,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1" }, {
    versionNegotiation: { mode: setup.negotiation ?? "legacy" },
  });
  const connection = serveStdio(server.mcpServer, { transport: serverTransport });
  await client.connect(clientTransport);
  try {
    await fn({ server, client });
  } finally {
    await client.close();
    await connection.close();
    await server.close();
  }
  const channel = server.context.enrollments?.channelPath;
  if (channel) {
    const serverDir = channel.slice(0, channel.lastIndexOf("/"));
    await assert.rejects(Deno.lstat(serverDir), "the server's private directory is left behind");
  }
}

const FULL_OUTPUT_SCHEMAS = new Map<string, JsonSchema>(
  CATALOG.map((tool) => [tool.name, tool.outputSchema]),
);

export type CallOptions = {
  signal?: AbortSignal;
  onprogress?: (progress: unknown) => void;
  timeout?: number;
};

/** The line an answer opens with after calls its client gave up on. */
export const MISSED_LEAD = /^note: your client cancelled or timed out [^\n]*\n/;

/**
 * The text content a payload must come with: its tool's own words (tmux_run), else a success's
 * JSON and a failure's one line (lib/mcp/tool_result.ts).
 */
export function expectedText(name: string, payload: Payload): string {
  const tool = CATALOG.find((candidate) => candidate.name === name);
  const text = toCallToolResult(payload, tool?.wording?.(payload)).content[0];
  return text.type === "text" ? text.text : "";
}

/**
 * Calls a tool and returns its payload (structuredContent), after checking what every result
 * must satisfy: the text content is the payload in the tool's words, isError matches ok, and the
 * payload is valid against `schema` when the tool has one.
 */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: CallOptions,
  schema: JsonSchema | undefined,
): Promise<Payload> {
  const result = await client.callTool({ name, arguments: args }, options);
  const payload: Payload = result.structuredContent;
  const text = (result.content as { text: string }[])[0].text;
  // After a call this client cancelled, the next answer opens with what that call came to
  // (lib/server/missed_calls.ts); the rest is the payload's text as always.
  const lead = MISSED_LEAD.exec(text)?.[0] ?? "";
  assert.equal(text.slice(lead.length), expectedText(name, payload));
  assert.equal(result.isError, !payload.ok);
  if (schema) {
    assert.ok(
      ajvAccepts(schema, payload),
      `${name} result does not match its output schema: ${validationErrors(schema, payload)}\n${
        JSON.stringify(payload)
      }`,
    );
  }
  return payload;
}

/** Starts the server in-process with `flags` and connects an SDK client to it. */
export async function withServer(
  lab: Lab,
  flags: string[],
  fn: (session: Session) => Promise<void>,
  hooks: RunHooks = {},
): Promise<void> {
  const setupFile = `${lab.dir}/enroll-${randomHex(4)}`;
  const setup = { flags: flags.map((f) => f.replace("SETUP", setupFile)), hooks };
  await withConnectedServer(lab, setup, async ({ server, client }) => {
    // Results are held to each tool's full output schema, not the compact one tools/list
    // advertises (lib/mcp/advertised.ts); the SDK client checks the advertised one itself.
    await client.listTools();
    const call = (name: string, args: Record<string, unknown> = {}, signal?: AbortSignal) =>
      callTool(client, name, args, { signal }, FULL_OUTPUT_SCHEMAS.get(name));
    const capabilities = await call("tmux_capabilities").catch(() => null);
    const generation = capabilities?.data?.generation ?? server.context.generation;
    const run = async (script: string, extra: Record<string, unknown> = {}) => {
      const payload = await call("tmux_run", {
        target: { kind: "pane", id: lab.pane, generation },
        script,
        ...extra,
      });
      assertValidRunResult(payload);
      return payload;
    };
    const enroll = async (pane = lab.pane) => {
      await sourceInPane(lab, setupFile, pane);
      await waitFor("the pane to be enrolled", () => server.context.enrollments?.shells.has(pane))
        .catch(async (error) => {
          const screen = await lab.tmuxCmd("capture-pane", "-p", "-t", pane);
          throw new Error(`${error.message}; the pane shows:\n${screen}`);
        });
      await waitForPrompt({ ...lab, pane });
    };
    await fn({ server, client, generation, call, run, enroll, setupFile });
  });
}

/** A server with tmux_run on that invites the lab's first pane through its setup file. */
export const ENROLL = ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP"];

/**
 * A test in a lab whose pane is lent, as a person lends it, to a server started with ENROLL and
 * `flags` (and `hooks`, to cause a fault at an exact phase).
 */
export function enrolled(
  fn: (lab: Lab, s: Session) => Promise<void>,
  flags: string[] = [],
  hooks: (lab: Lab) => RunHooks = () => ({}),
): () => Promise<void> {
  return () =>
    withLab((lab) =>
      withServer(lab, [...ENROLL, ...flags], async (s) => {
        await s.enroll();
        await fn(lab, s);
      }, hooks(lab))
    );
}

export function assertValidRunResult(payload: Payload): void {
  assert.ok(
    ajvAccepts(schemas.tmuxRunOutput, payload),
    `result does not match the output schema: ${validationErrors(schemas.tmuxRunOutput, payload)}`,
  );
}

export async function typeInto(lab: Lab, text: string, enter = false): Promise<void> {
  await lab.tmuxCmd("send-keys", "-t", lab.pane, "-l", text);
  if (enter) await lab.tmuxCmd("send-keys", "-t", lab.pane, "Enter");
}

/** Splits the lab's first pane (detached) and returns the new pane's id. */
export async function splitPane(lab: Lab, ...command: string[]): Promise<string> {
  return await lab.tmuxCmd(
    "split-window",
    "-d",
    "-P",
    "-F",
    "#{pane_id}",
    "-t",
    lab.pane,
    ...command,
  );
}

/** Waits until the pane's foreground process is `command` (the shell is busy running it). */
export async function waitUntilRunning(lab: Lab, command: string): Promise<void> {
  await waitFor(
    `${command} to run in the pane`,
    async () =>
      await lab.tmuxCmd("display-message", "-p", "-t", lab.pane, "#{pane_current_command}") ===
        command,
  );
}

/**
 * The environment MCP clients start servers with: PATH and HOME only, plus the certificate
 * trust a cold Deno cache needs to reach the registry, plus `env`. HOME stays the real one (Deno
 * finds its cache there), so the servers' journals go to a state directory of this test process
 * (testStateHome), never into the person's ~/.local/state.
 */
export function clientEnvironment(env: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: Deno.env.get("HOME") ?? "/",
    XDG_STATE_HOME: testStateHome(),
    ...denoTrustEnvironment(),
    ...env,
  };
}

let stateHome: string | null = null;
/** One private state directory for this test process's servers, removed when it exits. */
export function testStateHome(): string {
  if (stateHome === null) {
    const made = Deno.makeTempDirSync({ prefix: "tmux-mcp-test-state-" });
    globalThis.addEventListener("unload", () => Deno.removeSync(made, { recursive: true }));
    stateHome = made;
  }
  return stateHome;
}
// Servers a test starts with this process's own environment (tests/tmux_run_shutdown_test.ts,
// tests/in_pane_test.ts) inherit it too: no test writes the person's journal.
Deno.env.set("XDG_STATE_HOME", testStateHome());

/** Runs this Deno with `args` in the environment MCP clients give a server, plus `env`. */
export async function runDeno(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    env: clientEnvironment(env),
    clearEnv: true,
    stdin: "null",
    cwd: "/",
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}
