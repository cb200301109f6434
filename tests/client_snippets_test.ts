// The client configurations a person copies from README.md and docs/ must work as written on a
// machine with no global deno: each JSON or TOML block parses, names the server by a file that
// exists in this checkout (the snippets write it /path/to/tmux-mcp), runs Deno through
// `npx -y deno@2.9.6` or by an absolute path (never `deno` by name: a client then fails with
// ENOENT), and started as the client would start it, in a bare environment whose PATH holds no
// deno, answers an MCP handshake and lists its tools. Identical command lines start once.
import assert from "node:assert/strict";
import { denoTrustEnvironment } from "../lib/cli/private_lab.ts";
import { testStateHome } from "./harness.ts";
import { randomHex } from "../lib/util/ids.ts";

const ROOT = new URL("../", import.meta.url);
const CHECKOUT = ROOT.pathname.replace(/\/$/, "");
const PLACEHOLDER = "/path/to/tmux-mcp";

type Launch = { where: string; command: string; args: string[]; env: Record<string, string> };

/** README.md and the docs pages, each with its fenced blocks of one language. */
function blocks(language: string): { where: string; text: string }[] {
  const files = ["README.md", ...walkDocs("docs")];
  return files.flatMap((file) => {
    const text = Deno.readTextFileSync(new URL(file, ROOT));
    const fence = new RegExp("^```" + language + "\\n([\\s\\S]*?)^```", "gm");
    return [...text.matchAll(fence)].map((match) => ({ where: file, text: match[1] }));
  });
}

function walkDocs(directory: string): string[] {
  return [...Deno.readDirSync(new URL(directory, ROOT))].flatMap((entry) => {
    const path = `${directory}/${entry.name}`;
    return entry.isDirectory ? walkDocs(path) : entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The servers a parsed client configuration starts, in any client's shape. */
function serversIn(config: Record<string, unknown>, where: string): Launch[] {
  const tables = [config.mcpServers, config.servers, config.mcp_servers, config.mcp];
  const launches: Launch[] = [];
  for (const table of tables) {
    if (typeof table !== "object" || table === null) continue;
    const nested = (table as Record<string, unknown>).servers;
    const entries = Object.values(
      typeof nested === "object" && nested !== null ? nested : table,
    ) as Record<string, unknown>[];
    for (const entry of entries) {
      if (typeof entry !== "object" || entry === null) continue;
      const env = (entry.env ?? entry.environment ?? {}) as Record<string, string>;
      if (Array.isArray(entry.command)) {
        const [command, ...args] = entry.command as string[];
        launches.push({ where, command, args, env });
      } else if (typeof entry.command === "string") {
        launches.push({ where, command: entry.command, args: (entry.args ?? []) as string[], env });
      }
    }
  }
  return launches;
}

/** Codex's TOML as its snippets write it: tables, and keys whose values are JSON. */
function parseToml(text: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let table = root;
  for (const line of text.split("\n").map((line) => line.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[([\w.-]+)\]$/.exec(line);
    if (header) {
      table = root;
      for (const key of header[1].split(".")) {
        table = (table[key] ??= {}) as Record<string, unknown>;
      }
      continue;
    }
    const pair = /^([\w-]+)\s*=\s*(.+)$/.exec(line);
    assert.ok(pair, `not a TOML key = value line: ${line}`);
    table[pair[1]] = JSON.parse(pair[2]);
  }
  return root;
}

function launches(): Launch[] {
  const found: Launch[] = [];
  // A block that names a server table is a client configuration (other JSON blocks are fragments
  // of answers and need not parse on their own).
  for (const { where, text } of blocks("json")) {
    if (!/"(mcpServers|servers|mcp|mcp_servers)"\s*:/.test(text)) continue;
    found.push(...serversIn(JSON.parse(text), where));
  }
  for (const { where, text } of blocks("toml")) found.push(...serversIn(parseToml(text), where));
  for (const { where, text } of blocks("sh")) {
    for (const line of text.split("\n")) {
      const added = /^claude mcp add (\S+) -- (.+)$/.exec(line.trim());
      if (!added) continue;
      const [command, ...args] = added[2].split(/\s+/);
      found.push({ where, command, args, env: {} });
    }
  }
  return found;
}

/** PATH without any directory that holds a deno: the machine the README is written for. */
function pathWithoutDeno(): string {
  return (Deno.env.get("PATH") ?? "/usr/bin:/bin").split(":").filter((dir) => {
    try {
      Deno.statSync(`${dir}/deno`);
      return false;
    } catch {
      return dir !== "";
    }
  }).join(":");
}

function onPath(name: string, path: string): boolean {
  return path.split(":").some((dir) => {
    try {
      return Deno.statSync(`${dir}/${name}`).isFile;
    } catch {
      return false;
    }
  });
}

/** The file a snippet names as the server's entry point, in this checkout. */
function entryPoint(launch: Launch): string | undefined {
  return launch.args.find((arg) => arg.startsWith(PLACEHOLDER) || arg.startsWith("/"))
    ?.replace(PLACEHOLDER, CHECKOUT);
}

Deno.test("every client configuration in README.md and docs/ parses and names an existing entry point", () => {
  const found = launches();
  const clients = found.filter((launch) => launch.where === "README.md");
  // Claude Code, Claude Desktop, Codex, VS Code, Gemini CLI, opencode, GitHub Copilot CLI.
  assert.ok(clients.length >= 7, `the README shows ${clients.length} client configurations`);
  for (const launch of found) {
    const label = `${launch.where}: ${launch.command} ${launch.args.join(" ")}`;
    assert.notEqual(launch.command, "deno", `${label}: runs deno by name`);
    assert.ok(
      launch.command === "npx" || launch.command === "ssh" || launch.command.startsWith("/"),
      `${label}: the command is npx, ssh or an absolute path`,
    );
    if (launch.command === "npx") {
      assert.deepEqual(launch.args.slice(0, 3), ["-y", "deno@2.9.6", "run"], label);
    }
    const entry = entryPoint(launch);
    assert.ok(entry, `${label}: names no entry point`);
    assert.ok(Deno.statSync(entry).isFile, `${label}: ${entry} does not exist`);
  }
});

const PATH = pathWithoutDeno();

Deno.test({
  name:
    "each distinct client configuration starts the server with no deno on PATH and lists its tools",
  ignore: !onPath("npx", PATH),
  fn: async () => {
    const distinct = new Map<string, Launch>();
    for (const launch of launches().filter((launch) => launch.command === "npx")) {
      distinct.set(JSON.stringify([launch.args, launch.env]), launch);
    }
    assert.ok(distinct.size >= 1);
    for (const launch of distinct.values()) await listsTools(launch);
  },
});

async function listsTools(launch: Launch): Promise<void> {
  const label = `${launch.where}: npx ${launch.args.join(" ")}`;
  const args = launch.args.map((arg) => arg.replace(PLACEHOLDER, CHECKOUT));
  // Its own tmux socket name, so nothing reaches the person's tmux server.
  args.push("--socket-name", `tmux-mcp-snippet-${randomHex(4)}`);
  const extraCa = Deno.env.get("NODE_EXTRA_CA_CERTS");
  const child = new Deno.Command("npx", {
    args,
    env: {
      PATH,
      HOME: Deno.env.get("HOME") ?? "/",
      XDG_STATE_HOME: testStateHome(),
      ...denoTrustEnvironment(),
      ...(extraCa ? { NODE_EXTRA_CA_CERTS: extraCa } : {}),
      ...launch.env,
    },
    clearEnv: true,
    cwd: "/",
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) =>
    writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "snippet-test", version: "1" },
    },
  });
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const answer = async (id: number): Promise<Record<string, unknown>> => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        const message = JSON.parse(line);
        if (message.id === id) return message;
        continue;
      }
      const { value, done } = await lines.read();
      if (done) break;
      buffered += value;
    }
    throw new Error(`${label}: no answer to request ${id}`);
  };
  let stderr = "";
  const errors = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (stderr += chunk) }),
  );
  try {
    const initialized = await answer(1);
    assert.ok(initialized.result, `${label}: ${JSON.stringify(initialized)}\n${stderr}`);
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const listed = await answer(2);
    const tools = (listed.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    assert.ok(tools.includes("list_panes"), `${label}: ${tools.join(", ")}`);
    if (args.includes("tmux_run")) assert.ok(tools.includes("tmux_run"), label);
  } finally {
    await writer.close();
    await lines.cancel();
    const status = await child.status;
    await errors;
    assert.equal(status.code, 0, `${label}: exit ${status.code}\n${stderr}`);
  }
}

Deno.test("every `deno task` a document names is a task of deno.json", () => {
  const tasks = Object.keys(JSON.parse(Deno.readTextFileSync(new URL("deno.json", ROOT))).tasks);
  const files = ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", ...walkDocs("docs")];
  const unknown: string[] = [];
  for (const file of files) {
    const text = Deno.readTextFileSync(new URL(file, ROOT));
    for (const [, task] of text.matchAll(/deno(?:@[\d.]+)? task ([\w:-]+)/g)) {
      if (!tasks.includes(task)) unknown.push(`${file}: deno task ${task}`);
    }
  }
  assert.deepEqual(unknown, []);
});

// The shell commands themselves run elsewhere: `deno task demo` and `smoke` in
// tests/ship_test.ts, the enroll line a server prints and `eval "$(tmux-mcp enroll)"` /
// `leave` typed into a real pane in tests/enroll_command_test.ts and tests/in_pane_test.ts.
Deno.test("the README's example enroll line has the shape the server prints", () => {
  const readme = Deno.readTextFileSync(new URL("README.md", ROOT));
  assert.match(
    readme,
    /^eval "\$\(\/\S+ run -A \S+\/main\.ts enroll --server \d+ --directory \/\S+\)"$/m,
  );
});
