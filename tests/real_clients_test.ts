// Real MCP clients, installed from npm at pinned versions (.ci/real-clients.sh; .ci/run passes
// their directory as TMUX_MCP_CLIENTS), each in its own non-interactive mode, configured as the
// README configures it, start the server and talk to a scripted model on loopback
// (tests/scripted_model.ts) in their own API format (opencode, Qwen Code and GitHub Copilot CLI
// the OpenAI Chat Completions API). What is checked is what each client's model
// receives: our tools offered, a tmux_run result with its outcome and run id, a 60 KB and a 200 KB
// result whose outcome and receipt are still visible, the refusal for a pane that is not
// enrolled, for Gemini CLI the `wait_for_previous` it adds to every tool, sent and not refused,
// and for Codex a tmux_run its tool_timeout_sec cut: the server's note on it
// (lib/server/missed_calls.ts) reaches Codex, and its model reads how it ended in
// tmux_capabilities' recent_runs. A client that is not installed there is ignored, saying why.
import assert from "node:assert/strict";
import { splitPane, withLab, zshCommand } from "./harness.ts";
import { denoTrustEnvironment, sourceInPane, waitFor } from "../lib/cli/private_lab.ts";
import { CATALOG } from "../lib/server/catalog.ts";
import { processExists } from "../lib/host/processes.ts";
import { type Move, type OfferedTool, startScriptedModel, type Turn } from "./scripted_model.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const CLIENTS = Deno.env.get("TMUX_MCP_CLIENTS");
if (!CLIENTS) {
  console.error("real_clients_test: TMUX_MCP_CLIENTS is unset (.ci/real-clients.sh prints one)");
}

/** How a client is started: its executable in the cache, and how it gets the server and model. */
type RealClient = {
  name: string;
  /** The executable under TMUX_MCP_CLIENTS. */
  bin: string;
  /** Whether the client adds `wait_for_previous` to every tool (the script then sends it). */
  addsWaitForPrevious: boolean;
  /** Whether the model gets the whole 60 KB result, not a part of it. */
  keepsLargeResult: boolean;
  /**
   * Where the client offers our tools only behind its own search (Qwen Code): the search the
   * model makes first, and how it then calls one of our tools by its name there.
   */
  deferred?: {
    search: { tool: string; args: Record<string, unknown> };
    callThrough: (ours: string, args: Record<string, unknown>) => Move;
  };
  /** Configures the client in `home` and runs it once, non-interactively, in `workspace`. */
  run: (setting: Setting) => Promise<Deno.CommandOutput>;
};

type Setting = {
  bin: string;
  home: string;
  workspace: string;
  modelUrl: string;
  server: { command: string; args: string[]; env: Record<string, string> };
  env: Record<string, string>;
  /** Ends a client that is still running after CLIENT_LIMIT_MS. */
  signal: AbortSignal;
  /** Where the client has a limit on a tool call's time (Codex's tool_timeout_sec): seconds. */
  toolTimeoutSec?: number;
};

// A run takes 2-15 s; a client that waits for something that never comes is ended well before
// the CI step's 5 minutes.
const CLIENT_LIMIT_MS = 90_000;

const PROMPT = "Use the tmux tools as the script says.";
const LARGE_LINES = 1200;
// `line NNNN ` and 40 digits and a newline: 51 bytes a line, 61,200 bytes in all.
const LARGE_SCRIPT = `for i in $(seq -w 1 ${LARGE_LINES}); do ` +
  "printf 'line %s %s\\n' $i 0123456789012345678901234567890123456789; done; exit 4";
const LARGE_BYTES = LARGE_LINES * 51;
// The same lines, 4,000 of them: 204,000 bytes, under the largest stdout_limit.
const HUGE_LINES = 4000;
const HUGE_SCRIPT = LARGE_SCRIPT.replace(`seq -w 1 ${LARGE_LINES}`, `seq -w 1 ${HUGE_LINES}`)
  .replace(/exit 4$/, "exit 6");
const HUGE_BYTES = HUGE_LINES * 51;
const MAX_STDOUT_LIMIT = 262_144;

/**
 * The tool a client offers for one of ours, whatever prefix (`mcp__tmux__`, Copilot CLI's
 * `tmux-`) or namespace it gives it.
 */
function offered(tools: OfferedTool[], ours: string): OfferedTool | undefined {
  return tools.find((tool) =>
    tool.name === ours || tool.name.endsWith(`_${ours}`) || tool.name.endsWith(`-${ours}`)
  );
}

/** What a case's script is given: the panes, and how to call one of our tools. */
type Stage = {
  enrolledPane: string;
  strangerPane: string;
  /** The call of our tool `ours` as the client offered it, or the answer that it did not. */
  call: (ours: string, args: Record<string, unknown>) => Move;
  /** A tmux_run of `script` in `pane`, under the server's generation. */
  run: (pane: string, script: string, extra?: Record<string, unknown>) => Move;
  /** A file in the lab's directory that the case may use. */
  dir: string;
};

/** One conversation a client has with the scripted model, and what its model must have got. */
type Case = {
  title: string;
  /** The next move after `results` (the first, tmux_capabilities, is made for every case). */
  next: (stage: Stage, results: string[]) => Move | Promise<Move>;
  check: (client: RealClient, drive: Drive) => void;
  toolTimeoutSec?: number;
};

/**
 * The script: look at the server (its generation is in the answer), wait for the pane to enroll,
 * then play the case. A client that defers our tools gets its search first; the case is then
 * given the results after the search's.
 */
function script(
  stage: Omit<Stage, "call" | "run">,
  enrolled: Promise<void>,
  client: RealClient,
  next: Case["next"],
) {
  return async (tools: OfferedTool[], allResults: string[]): Promise<Move> => {
    const call = (ours: string, args: Record<string, unknown>): Move => {
      const sent = client.addsWaitForPrevious ? { ...args, wait_for_previous: true } : args;
      const tool = offered(tools, ours);
      if (tool) return { tool: tool.name, namespace: tool.namespace, args: sent };
      return client.deferred?.callThrough(ours, sent) ?? { text: `the client offered no ${ours}` };
    };
    if (client.deferred && allResults.length === 0) return client.deferred.search;
    const results = client.deferred ? allResults.slice(1) : allResults;
    if (results.length === 0) return call("tmux_capabilities", {});
    const generation = /"generation"\s*:\s*"([a-f0-9]{32})"/.exec(results[0])?.[1];
    if (!generation) return { text: "no generation in the tmux_capabilities result" };
    await enrolled;
    const run = (pane: string, script: string, extra: Record<string, unknown> = {}) =>
      call("tmux_run", { target: { kind: "pane", id: pane, generation }, script, ...extra });
    return await next({ ...stage, call, run }, results);
  };
}

/**
 * Every client: a script that exits 3 in the enrolled pane, one that prints 60 KB and exits 4,
 * one that prints 200 KB and exits 6, one in a pane that is not enrolled, then the answer.
 */
const TOUR: Case = {
  title: "shows its model our tools and what tmux_run and a refusal return",
  next: ({ enrolledPane, strangerPane, run }, results) => {
    if (results.length === 1) return run(enrolledPane, "echo hello from the model; exit 3");
    if (results.length === 2) return run(enrolledPane, LARGE_SCRIPT);
    if (results.length === 3) {
      return run(enrolledPane, HUGE_SCRIPT, { stdout_limit: MAX_STDOUT_LIMIT });
    }
    if (results.length === 4) return run(strangerPane, "echo never");
    return { text: "done" };
  },
  check: checkTour,
};

// A client's limit on a call, and a script that outlasts it by far.
const TOOL_TIMEOUT_SEC = 5;
const SLEEPER_SECONDS = 60;
/** How many tmux_capabilities calls the model makes after the cut call, at most. */
const LATER_TRIES = 4;
const NOTE_LEAD =
  /note: your client cancelled or timed out a call whose answer it never took; [^\n]*/;
/** A cut run's ending as recent_runs lists it (tmux_capabilities' JSON). */
const CANCELLED_RUN =
  /"run_id":"([0-9a-f]{32})"[^{}]*"outcome":"failed","completion":\{[^{}]*\},"error":\{"code":"cancelled"/;

/** A line of `codex exec --json`: an MCP call's item carries the result Codex got. */
type CodexEvent = {
  type?: string;
  item?: { type?: string; result?: { content?: { text?: string }[] } | null };
};

/**
 * A client that cuts a call at TOOL_TIMEOUT_SEC (Codex's tool_timeout_sec): a tmux_run that
 * sleeps far longer, then, once that script has ended, tmux_capabilities until a result names
 * how the cut run ended, in the note or in recent_runs (at most LATER_TRIES), then the answer.
 */
const CUT_CALL: Case = {
  title: "learns how a tmux_run it timed out ended",
  toolTimeoutSec: TOOL_TIMEOUT_SEC,
  next: async ({ enrolledPane, dir, call, run }, results) => {
    const pidFile = `${dir}/sleeper.pid`;
    if (results.length === 1) {
      return run(enrolledPane, `echo $$ > '${pidFile}'; sleep ${SLEEPER_SECONDS}; exit 5`);
    }
    if (results.length === 2) {
      // The server stops the cut call's script, then records how it ended.
      const pid = Number(
        await waitFor(
          "the cut script to have started",
          () => Deno.readTextFile(pidFile).catch(() => ""),
          10_000,
        ),
      );
      await waitFor("the cut script to end", async () => !await processExists(pid), 30_000);
    }
    const last = results.at(-1) ?? "";
    const named = results.length > 2 && (NOTE_LEAD.test(last) || CANCELLED_RUN.test(last));
    if (named || results.length > 2 + LATER_TRIES) return { text: "done" };
    return call("tmux_capabilities", {});
  },
  check: (_client, { turns, output }) => {
    const [, cut, ...later] = turns.at(-1)?.results ?? [];
    assert.match(cut, new RegExp(`timed out awaiting tools/call after ${TOOL_TIMEOUT_SEC}s`));
    // What Codex got from the server (`codex exec --json` prints each call's result): the note
    // leads the text content of an answer after the cut call, naming the run.
    const texts = new TextDecoder().decode(output.stdout).split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line): CodexEvent => JSON.parse(line))
      .filter((event) => event.type === "item.completed" && event.item?.type === "mcp_tool_call")
      .map((event) => event.item?.result?.content?.[0]?.text ?? "");
    const note = texts.map((text) => NOTE_LEAD.exec(text)?.[0]).find((found) => found);
    assert.ok(note, `no answer Codex got carries the note:\n${texts.join("\n")}`);
    const runId =
      /tmux_run after \d+\.\d s: error cancelled \(delivery: possibly_sent\), run ([0-9a-f]{32}) (signaled \d+|exited \d+|completion unobserved)\./
        .exec(note)?.[1];
    assert.ok(runId, note);
    // What its model got: structuredContent's JSON, where recent_runs names the cut run and how
    // it ended; Codex 0.171.0 gives its model no text content beside structuredContent, so the
    // note does not reach it (a Codex that does should be said in docs/clients.md).
    const listed = later.map((result) => CANCELLED_RUN.exec(result)?.[1]).find(Boolean);
    assert.equal(listed, runId, `no later result lists the cut run:\n${later.join("\n---\n")}`);
    assert.ok(!later.some((result) => NOTE_LEAD.test(result)), "the note reached Codex's model");
  },
};

/**
 * Sources the setup file in the pane once the server the client started has written it; gives up
 * when the client has exited (`ended`) without starting one.
 */
async function enrollWhenWritten(
  lab: Parameters<Parameters<typeof withLab>[0]>[0],
  setupFile: string,
  ended: () => boolean,
): Promise<void> {
  await waitFor(
    "the server to write the setup file",
    async () => await exists(setupFile) || ended(),
    120_000,
  );
  if (!await exists(setupFile)) throw new Error("the client ended before it started the server");
  await sourceInPane(lab, setupFile);
  // The server removes the file when the pane enrolls.
  await waitFor("the pane to enroll", async () => !await exists(setupFile), 30_000);
}

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

function denoCache(): string {
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME") ?? "/root"}/.cache`;
  return Deno.env.get("DENO_DIR") ?? `${cache}/deno`;
}

type Drive = { turns: Turn[]; sideRequests: string[]; output: Deno.CommandOutput; ms: number };

async function drive(client: RealClient, played: Case): Promise<void> {
  await withLab(async (lab) => {
    const stranger = await splitPane(lab, ...zshCommand(lab.dir));
    const setupFile = `${lab.dir}/enroll-setup`;
    let ended = false;
    const enrolled = enrollWhenWritten(lab, setupFile, () => ended);
    // Awaited after the client's run; a failure before then is not an unhandled rejection.
    enrolled.catch(() => {});
    const model = startScriptedModel(
      script(
        { enrolledPane: lab.pane, strangerPane: stranger, dir: lab.dir },
        enrolled,
        client,
        played.next,
      ),
      (tools) =>
        offered(tools, "tmux_capabilities") !== undefined ||
        tools.some((tool) => tool.name === client.deferred?.search.tool),
    );
    const home = await Deno.makeTempDir({ prefix: "tmux-mcp-client-home-" });
    const workspace = `${home}/workspace`;
    await Deno.mkdir(workspace);
    const node = `${CLIENTS}/node/node_modules/node/bin`;
    try {
      const started = performance.now();
      const output = await client.run({
        bin: `${CLIENTS}/${client.bin}`,
        home,
        workspace,
        modelUrl: model.url,
        server: {
          command: Deno.execPath(),
          args: [
            "run",
            "-A",
            "--quiet",
            MAIN,
            "--socket-name",
            lab.socketName,
            "--enable-tool",
            "tmux_run",
            "--enroll-pane",
            `${lab.pane}=${setupFile}`,
            "--no-journal",
          ],
          // The client gives the server its own (temporary) HOME: Deno's cache is named.
          env: { DENO_DIR: denoCache(), ...denoTrustEnvironment() },
        },
        env: {
          HOME: home,
          PATH: `${node}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
          ...denoTrustEnvironment(),
        },
        signal: AbortSignal.timeout(CLIENT_LIMIT_MS),
        toolTimeoutSec: played.toolTimeoutSec,
      });
      const ms = Math.round(performance.now() - started);
      ended = true;
      const drive = { turns: model.turns, sideRequests: model.sideRequests, output, ms };
      report(client, drive);
      try {
        await enrolled;
        played.check(client, drive);
      } catch (error) {
        const decoder = new TextDecoder();
        console.log(`${client.name} said on stdout:\n${decoder.decode(output.stdout)}`);
        console.log(`and on stderr:\n${decoder.decode(output.stderr)}`);
        throw error;
      }
    } finally {
      await model.close();
      await Deno.remove(home, { recursive: true });
    }
  });
}

function report(client: RealClient, { turns, sideRequests, output, ms }: Drive): void {
  const tools = turns[0]?.tools ?? [];
  const ours = CATALOG.filter((tool) => offered(tools, tool.name)).length;
  const named = namedInRequest(turns[0]?.request ?? "").length;
  const results = turns.at(-1)?.results ?? [];
  console.log(
    `${client.name}: exit ${output.code} in ${ms} ms, ${turns.length} turns, ` +
      `${ours} of our tools offered with their schemas (${tools.length} tools in all), ` +
      `${named} named in the request, ` +
      `${sideRequests.length} side requests; the results the model received, in characters: ` +
      results.map((result) => result.length).join(", "),
  );
}

/** Our tools the request names anywhere: offered, or listed as deferred behind a search. */
function namedInRequest(request: string): string[] {
  return CATALOG.map((tool) => tool.name).filter((name) =>
    new RegExp(`(^|[^a-z_])(\\w+_)?${name}([^a-z_]|$)`).test(request)
  );
}

function checkTour(client: RealClient, { turns }: Drive): void {
  // A client that defers our tools plays one turn more: the search.
  const searched = client.deferred ? 1 : 0;
  assert.equal(turns.length, 6 + searched, `the client played ${turns.length} turns`);
  const last = turns[5 + searched];
  assert.deepEqual(last.move, { text: "done" });
  // Offered at once, or, where deferred, declared with their schemas in the search's result.
  const ours = CATALOG.map((tool) => tool.name).filter((name) =>
    client.deferred
      ? new RegExp(`\\b\\w*${name}\\b[^]*"properties"`).test(last.results[0])
      : offered(turns[0].tools, name)
  );
  assert.ok(ours.includes("tmux_run") && ours.includes("tmux_capabilities"), ours.join(", "));
  // The tools offered at once, or named for a search (Claude Code defers all but two).
  const named = namedInRequest(turns[0].request);
  assert.ok(named.includes("list_panes") && named.includes("send_keys"), named.join(", "));
  if (client.addsWaitForPrevious) {
    for (const name of ours) {
      const schema = offered(turns[0].tools, name)?.schema as { properties?: object };
      assert.ok(
        schema?.properties && "wait_for_previous" in schema.properties,
        `${name} is offered without wait_for_previous`,
      );
    }
  }
  const [capabilities, exited, large, huge, refused] = last.results.slice(searched);
  // tmux_capabilities was called (with wait_for_previous where the client adds it) and answered.
  assert.match(capabilities, /"ok"\s*:\s*true/);
  outcomeShown(exited, 3);
  assert.match(exited, /hello from the model/);
  assert.match(exited, /run [0-9a-f]{32} in pane %\d+|"run_id"\s*:\s*"[0-9a-f]{32}"/);
  outcomeShown(large, 4);
  assert.match(large, /line 0001 /);
  if (client.keepsLargeResult) {
    assert.ok(large.length >= LARGE_BYTES, `the model got ${large.length} characters`);
    assert.match(large, new RegExp(`line ${LARGE_LINES} `));
  } else {
    assert.ok(large.length < LARGE_BYTES, `the model got all ${large.length} characters`);
  }
  // 200 KB: whatever part of it a client keeps, the outcome and the receipt are in it.
  outcomeShown(huge, 6);
  receiptShown(huge);
  assert.match(huge, /line 0001 /);
  if (client.keepsLargeResult) {
    assert.ok(huge.length >= HUGE_BYTES, `the model got ${huge.length} characters`);
  }
  assert.match(refused, /unsupported/);
  assert.match(refused, /is not enrolled for tmux_run/);
}

/**
 * The outcome as the model got it: the text's `exited N`, or the JSON of structuredContent
 * where the client forwards that instead (Claude Code, for a success).
 */
function outcomeShown(result: string, status: number): void {
  assert.match(
    result,
    new RegExp(
      `exited ${status}\\b|"state"\\s*:\\s*"exited"\\s*,\\s*"exit_status"\\s*:\\s*${status}\\b`,
    ),
  );
}

/** The receipt as the model got it: the run id and the script's SHA-256, in text or JSON. */
function receiptShown(result: string): void {
  assert.match(result, /run [0-9a-f]{32} in pane %\d+|"run_id"\s*:\s*"[0-9a-f]{32}"/);
  assert.match(result, /script sha256 [0-9a-f]{64}|"script_digest"\s*:\s*"[0-9a-f]{64}"/);
}

const claudeCode: RealClient = {
  name: "Claude Code",
  bin: "claude/node_modules/.bin/claude",
  addsWaitForPrevious: false,
  keepsLargeResult: true,
  run: async ({ bin, workspace, modelUrl, server, env, signal }) => {
    const claudeEnv = {
      ...env,
      ANTHROPIC_BASE_URL: modelUrl,
      ANTHROPIC_API_KEY: "sk-ant-scripted",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
    // As the README adds it: `claude mcp add tmux -- COMMAND ARGS...`.
    const added = await new Deno.Command(bin, {
      args: [
        "mcp",
        "add",
        "tmux",
        ...Object.entries(server.env).flatMap(([name, value]) => ["-e", `${name}=${value}`]),
        "--",
        server.command,
        ...server.args,
      ],
      cwd: workspace,
      env: claudeEnv,
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
    assert.equal(added.code, 0, new TextDecoder().decode(added.stderr));
    return await new Deno.Command(bin, {
      args: ["-p", PROMPT, "--allowedTools", "mcp__tmux", "--output-format", "json"],
      cwd: workspace,
      env: claudeEnv,
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
  },
};

/** A TOML value: JSON writes strings, arrays and inline tables the way TOML reads them. */
function toml(value: unknown): string {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return `{ ${Object.entries(value).map(([key, item]) => `${key} = ${toml(item)}`).join(", ")} }`;
  }
  return JSON.stringify(value);
}

const codex: RealClient = {
  name: "Codex",
  bin: "codex/node_modules/.bin/codex",
  addsWaitForPrevious: false,
  keepsLargeResult: false,
  run: async ({ bin, home, workspace, modelUrl, server, env, signal, toolTimeoutSec }) => {
    // Its own home (CODEX_HOME) with the README's [mcp_servers.tmux] and a provider on loopback.
    const codexHome = `${home}/.codex`;
    await Deno.mkdir(codexHome);
    await Deno.writeTextFile(
      `${codexHome}/config.toml`,
      [
        `model = "scripted"`,
        `model_provider = "scripted"`,
        `approval_policy = "never"`,
        "",
        "[model_providers.scripted]",
        `name = "scripted"`,
        `base_url = ${toml(`${modelUrl}/v1`)}`,
        `wire_api = "responses"`,
        "",
        "[mcp_servers.tmux]",
        `command = ${toml(server.command)}`,
        `args = ${toml(server.args)}`,
        `env = ${toml(server.env)}`,
        "startup_timeout_sec = 120",
        `tool_timeout_sec = ${toolTimeoutSec ?? 660}`,
        // Without it `codex exec` asks the model before a server slower to start than itself
        // has listed its tools, and the whole run goes without them (seen here 1 time in 12).
        "required = true",
        // `codex exec` cannot ask: without this a call that changes something (tmux_run, not
        // tmux_capabilities) is refused "MCP tool call requires approval, but approval policy
        // is never".
        `default_tools_approval_mode = "approve"`,
        "",
      ].join("\n"),
    );
    return await new Deno.Command(bin, {
      args: ["exec", "--json", "--skip-git-repo-check", PROMPT],
      cwd: workspace,
      env: { ...env, CODEX_HOME: codexHome },
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
  },
};

/**
 * Gemini CLI's settings in `dir`, which Qwen Code, a fork of it, reads in its own: the server as
 * a trusted mcpServers entry (`-p` cannot ask, so a call it would confirm is refused without
 * it), the workspace a trusted folder (in one it does not trust, no MCP server starts), and the
 * authentication `auth`.
 */
async function writeGeminiSettings(
  dir: string,
  server: Setting["server"],
  workspace: string,
  auth: string,
): Promise<void> {
  await Deno.mkdir(dir);
  await Deno.writeTextFile(
    `${dir}/settings.json`,
    JSON.stringify({
      mcpServers: {
        tmux: {
          command: server.command,
          args: server.args,
          env: server.env,
          timeout: 600000,
          trust: true,
        },
      },
      security: { auth: { selectedType: auth } },
    }),
  );
  await Deno.writeTextFile(
    `${dir}/trustedFolders.json`,
    JSON.stringify({ [workspace]: "TRUST_FOLDER" }),
  );
}

const geminiCli: RealClient = {
  name: "Gemini CLI",
  bin: "gemini/node_modules/.bin/gemini",
  addsWaitForPrevious: true,
  keepsLargeResult: false,
  run: async ({ bin, home, workspace, modelUrl, server, env, signal }) => {
    // The README's mcpServers entry in ~/.gemini/settings.json. A Gemini API key's
    // authentication: the "gateway" one a base URL alone selects is refused by `gemini -p`
    // ("Invalid auth method selected.").
    await writeGeminiSettings(`${home}/.gemini`, server, workspace, "gemini-api-key");
    return await new Deno.Command(bin, {
      args: ["-p", PROMPT, "--output-format", "json"],
      cwd: workspace,
      // GOOGLE_GEMINI_BASE_URL: the Gemini API at the scripted model.
      env: { ...env, GOOGLE_GEMINI_BASE_URL: modelUrl, GEMINI_API_KEY: "scripted" },
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
  },
};

const opencode: RealClient = {
  name: "opencode",
  bin: "opencode/node_modules/.bin/opencode",
  addsWaitForPrevious: false,
  keepsLargeResult: false,
  run: async ({ bin, workspace, modelUrl, server, env, signal }) => {
    // docs/clients.md's opencode.json: the server as a local MCP server, and a provider of the
    // OpenAI Chat Completions API at the scripted model.
    await Deno.writeTextFile(
      `${workspace}/opencode.json`,
      JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        model: "scripted/scripted",
        provider: {
          scripted: {
            npm: "@ai-sdk/openai-compatible",
            name: "scripted",
            options: { baseURL: `${modelUrl}/v1`, apiKey: "scripted" },
            models: { scripted: { name: "scripted", tool_call: true } },
          },
        },
        mcp: {
          tmux: {
            type: "local",
            command: [server.command, ...server.args],
            environment: server.env,
            enabled: true,
            timeout: 120_000,
          },
        },
      }),
    );
    return await new Deno.Command(bin, {
      args: ["run", "--print-logs", PROMPT],
      cwd: workspace,
      env: { ...env, OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1" },
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
  },
};

const qwenCode: RealClient = {
  name: "Qwen Code",
  bin: "qwen/node_modules/.bin/qwen",
  addsWaitForPrevious: false,
  keepsLargeResult: false,
  // Every MCP tool is behind its tool_search, which answers the schemas, and is then called
  // through its tool_call by the name the search gave.
  deferred: {
    search: {
      tool: "tool_search",
      args: { query: "select:mcp__tmux__tmux_capabilities,mcp__tmux__tmux_run" },
    },
    callThrough: (ours, args) => ({
      tool: "tool_call",
      args: { name: `mcp__tmux__${ours}`, arguments: args },
    }),
  },
  run: async ({ bin, home, workspace, modelUrl, server, env, signal }) => {
    // docs/clients.md's mcpServers entry in ~/.qwen/settings.json (Gemini CLI's shape).
    await writeGeminiSettings(`${home}/.qwen`, server, workspace, "openai");
    return await new Deno.Command(bin, {
      args: ["-p", PROMPT, "--output-format", "json"],
      cwd: workspace,
      env: {
        ...env,
        OPENAI_BASE_URL: `${modelUrl}/v1`,
        OPENAI_API_KEY: "scripted",
        OPENAI_MODEL: "scripted",
      },
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
  },
};

const copilotCli: RealClient = {
  name: "GitHub Copilot CLI",
  bin: "copilot/node_modules/.bin/copilot",
  addsWaitForPrevious: false,
  keepsLargeResult: false,
  run: async ({ bin, home, workspace, modelUrl, server, env, signal }) => {
    // docs/clients.md's mcp-config.json in its home (COPILOT_HOME), and its offline BYOK mode: an
    // OpenAI-compatible provider at the scripted model, no GitHub sign-in, nothing downloaded.
    const copilotHome = `${home}/.copilot`;
    await Deno.mkdir(copilotHome);
    await Deno.writeTextFile(
      `${copilotHome}/mcp-config.json`,
      JSON.stringify({
        mcpServers: {
          tmux: {
            type: "local",
            command: server.command,
            args: server.args,
            env: server.env,
            tools: ["*"],
          },
        },
      }),
    );
    return await new Deno.Command(bin, {
      // `copilot -p` cannot ask: every tool is allowed.
      args: ["-p", PROMPT, "--allow-all-tools", "--no-auto-update"],
      cwd: workspace,
      env: {
        ...env,
        COPILOT_HOME: copilotHome,
        COPILOT_OFFLINE: "true",
        COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`,
        COPILOT_PROVIDER_TYPE: "openai",
        COPILOT_PROVIDER_API_KEY: "scripted",
        COPILOT_MODEL: "scripted",
        COPILOT_AUTO_UPDATE: "false",
        // Where it saves a result too large for its model: in the home this test removes.
        TMPDIR: home,
      },
      clearEnv: true,
      stdin: "null",
      signal,
    }).output();
  },
};

for (const client of [claudeCode, codex, geminiCli, opencode, qwenCode, copilotCli]) {
  const reason = CLIENTS ? await missing(client) : "TMUX_MCP_CLIENTS is unset";
  if (reason) console.error(`real_clients_test: ${client.name} is ignored: ${reason}`);
  Deno.test({
    name: `${client.name} ${TOUR.title}`,
    ignore: reason !== null,
    fn: () => drive(client, TOUR),
  });
}

Deno.test({
  name: `Codex ${CUT_CALL.title}`,
  ignore: (CLIENTS ? await missing(codex) : "TMUX_MCP_CLIENTS is unset") !== null,
  fn: () => drive(codex, CUT_CALL),
});

async function missing(client: RealClient): Promise<string | null> {
  return await exists(`${CLIENTS}/${client.bin}`)
    ? null
    : `${CLIENTS}/${client.bin} is not there (.ci/real-clients.sh could not install it)`;
}
