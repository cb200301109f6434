// A client that ends the server the way GitHub Copilot CLI does: SIGTERM, then SIGKILL about
// 20 ms later, whether the server has answered yet or not (issue 27). Nothing may be left behind:
// not the private directory, not a setup file, not a process the server started; and the server
// never exits 1, which a client reports as a crash. Each case starts a real server process in
// the bare environment clients give it and signals it at a point a real event marks. A server
// busy for those 20 ms (starting, on a loaded machine) is SIGKILLed before its handler runs:
// its directory's guard removes the directory then (lib/host/directory_guard.ts), but a setup
// file still waiting to be sourced stays (inert: its server is gone), so the cases that may lose
// that race start without one.
import assert from "node:assert/strict";
import { clientEnvironment, type Lab, waitFor, withLab } from "./harness.ts";
import { childrenOf, groupMembers, processExists } from "../lib/host/processes.ts";
import { sourceInPane } from "../lib/cli/private_lab.ts";
import { TempFiles } from "../lib/host/temp_files.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

/** How long Copilot CLI waited between its SIGTERM and its SIGKILL (issue 27). */
const KILL_AFTER_MS = 20;

type Started = {
  child: Deno.ChildProcess;
  /** Resolves with the first line the server writes to stderr (its startup line). */
  startupLine: Promise<string>;
  /** The lines the server has written to stdout so far (its answers). */
  answers: string[];
  send: (message: object) => Promise<void>;
  /** The private directory base this server uses (TMPDIR is the test's own). */
  base: string;
  setupFile: string;
};

/**
 * The server as a client starts it, with tmux_run on; with `invite`, the lab's pane invited through
 * a setup file (which enrolling it consumes).
 */
function startServer(lab: Lab, tmpdir: string, invite = false): Started {
  const setupFile = `${lab.dir}/setup-fast-kill`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--quiet",
      MAIN,
      "--socket-name",
      lab.socketName,
      "--enable-tool",
      "tmux_run",
      ...(invite ? ["--enroll-pane", `${lab.pane}=${setupFile}`] : []),
      "--control-mode",
      "always",
    ],
    env: clientEnvironment({ TMPDIR: tmpdir }),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const answers: string[] = [];
  let startupLine = "";
  const readLines = async (stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) => {
    let text = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      let newline: number;
      while ((newline = text.indexOf("\n")) !== -1) {
        onLine(text.slice(0, newline));
        text = text.slice(newline + 1);
      }
    }
  };
  readLines(child.stdout, (line) => answers.push(line)).catch(() => {});
  const stderrRead = readLines(child.stderr, (line) => startupLine ||= line).catch(() => {});
  const writer = child.stdin.getWriter();
  return {
    child,
    startupLine: waitFor("the startup line", () => startupLine || null, 30_000).catch(
      async (error) => {
        await stderrRead;
        return startupLine || Promise.reject(error);
      },
    ),
    answers,
    send: (message) =>
      writer.write(new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`))
        .catch(() => {}),
    base: `${tmpdir}/tmux-mcp-${Deno.uid()}`,
    setupFile,
  };
}

/** SIGTERM, then SIGKILL KILL_AFTER_MS later unless it has exited; its exit status. */
async function killLikeCopilot(child: Deno.ChildProcess): Promise<Deno.CommandStatus> {
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // It exited already.
    }
  }, KILL_AFTER_MS);
  const status = await child.status;
  clearTimeout(timer);
  return status;
}

/** The server's directories left in the private base (none, or the base itself absent). */
async function leftDirectories(base: string): Promise<string[]> {
  const left: string[] = [];
  try {
    for await (const entry of Deno.readDir(base)) left.push(entry.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return left;
}

async function assertNothingLeft(server: Started, children: number[], status: Deno.CommandStatus) {
  assert.notEqual(status.code, 1, "the server exited 1, which a client reports as a crash");
  // A server SIGKILLed before its handler ran leaves the directory to its guard, which removes
  // it once the server is gone (lib/host/directory_guard.ts).
  await waitFor(
    `the private directory to go (exit ${status.code}, signal ${status.signal})`,
    async () => (await leftDirectories(server.base)).length === 0,
  );
  await assert.rejects(Deno.lstat(server.setupFile), "the setup file is left behind");
  for (const pid of children) {
    await waitFor(`the server's child ${pid} to end`, async () => !await processExists(pid));
  }
}

async function withTmpdir(fn: (tmpdir: string) => Promise<void>): Promise<void> {
  const tmpdir = await Deno.makeTempDir({ prefix: "tmux-mcp-fast-kill-" });
  try {
    await fn(tmpdir);
  } finally {
    await Deno.remove(tmpdir, { recursive: true });
  }
}

/** The 2025-era opening every case here sends first. */
const INITIALIZE = {
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "fast-kill", version: "1" },
  },
};

Deno.test("SIGTERM then SIGKILL 20 ms later, after the first answer, leaves nothing", () =>
  withLab((lab) =>
    withTmpdir(async (tmpdir) => {
      const server = startServer(lab, tmpdir);
      await server.send(INITIALIZE);
      const answered = (id: number) =>
        waitFor(`the answer to ${id}`, () =>
          server.answers.some((line) => JSON.parse(line).id === id), 30_000);
      await answered(1);
      await server.send({ method: "notifications/initialized" });
      await server.send({
        id: 2,
        method: "tools/call",
        params: { name: "list_panes", arguments: {} },
      });
      await answered(2);
      // Whatever the server started (its control-mode client) must end with it.
      const children = await childrenOf(server.child.pid);
      await assertNothingLeft(server, children, await killLikeCopilot(server.child));
    })
  ));

Deno.test("SIGTERM then SIGKILL 20 ms later, once started but before any answer, leaves nothing", () =>
  withLab((lab) =>
    withTmpdir(async (tmpdir) => {
      const server = startServer(lab, tmpdir);
      // The startup line comes once the directory and the setup file exist, before the server
      // reads its first request: a client that asks server/discover and gives up at once.
      await server.send({ id: 1, method: "server/discover", params: {} });
      assert.match(await server.startupLine, /^tmux-mcp: bound to /);
      const children = await childrenOf(server.child.pid);
      await assertNothingLeft(server, children, await killLikeCopilot(server.child));
    })
  ));

Deno.test("SIGTERM then SIGKILL 20 ms later, with a run in flight, leaves nothing", () =>
  withLab((lab) =>
    withTmpdir(async (tmpdir) => {
      const server = startServer(lab, tmpdir, true);
      await server.startupLine;
      await sourceInPane(lab, server.setupFile, lab.pane);
      await waitFor(
        "the pane to be enrolled",
        async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes("enrolled"),
      );
      const answered = (id: number) =>
        waitFor(
          `the answer to ${id}`,
          () => server.answers.find((line) => JSON.parse(line).id === id) ?? null,
          30_000,
        );
      await server.send(INITIALIZE);
      await answered(1);
      await server.send({ method: "notifications/initialized" });
      await server.send({
        id: 2,
        method: "tools/call",
        params: { name: "tmux_capabilities", arguments: {} },
      });
      const generation = JSON.parse(await answered(2)).result.structuredContent.data.generation;
      const pidFile = `${lab.dir}/sh.pid`;
      await server.send({
        id: 3,
        method: "tools/call",
        params: {
          name: "tmux_run",
          arguments: {
            target: { kind: "pane", id: lab.pane, generation },
            script: `echo $$ > '${pidFile}'; sleep 30`,
          },
        },
      });
      const group = await waitFor(
        "the script to start",
        () => Deno.readTextFile(pidFile).then(Number).catch(() => 0),
      );
      const children = await childrenOf(server.child.pid);
      await assertNothingLeft(server, children, await killLikeCopilot(server.child));
      // The helper stops the script's group when the server's connection goes (spec §5).
      await waitFor("the script's group to end", async () =>
        (await groupMembers(group)).length === 0);
    })
  ));

Deno.test("removeNow removes the private directory before it returns, and one made after it", async () => {
  const base = await Deno.makeTempDir({ prefix: "tmux-mcp-remove-now-" });
  try {
    const inBase = {
      path: base,
      role: "test",
      variable: "TMPDIR",
      serverPrefix: "server-",
    } as const;
    const made = new TempFiles("/tmux-mcp-test-no-socket", inBase);
    const place = await made.place();
    await made.lend((file) => Deno.writeTextFile(file, "x"));
    made.removeNow();
    assert.deepEqual([...Deno.readDirSync(base)], [], `${place.path} is still there`);
    // Told to stop while the directory is being made (place() has begun, and makes nothing
    // before it first waits): it goes once made.
    const late = new TempFiles("/tmux-mcp-test-no-socket", inBase);
    const placing = late.place().catch(() => null);
    late.removeNow();
    assert.ok(await placing, "the directory was made");
    assert.deepEqual([...Deno.readDirSync(base)].map((entry) => entry.name), []);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("a directory's guard removes it when its process is SIGKILLed, whatever it was doing", async () => {
  const base = await Deno.makeTempDir({ prefix: "tmux-mcp-guard-" });
  const guarded = `${base}/guarded`;
  const guard = new URL("../lib/host/directory_guard.ts", import.meta.url).href;
  // A process that guards a directory, says so, then stays busy: it never runs a handler.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `import { guardDirectory } from "${guard}";
      Deno.mkdirSync("${guarded}");
      guardDirectory("${guarded}");
      console.log("guarded");
      while (true) {}`,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.match((await reader.read()).value ?? "", /guarded/);
    reader.releaseLock();
    child.kill("SIGKILL");
    await child.status;
    await waitFor("the guarded directory to go", async () => {
      try {
        await Deno.lstat(guarded);
        return false;
      } catch {
        return true;
      }
    });
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // Ended already.
    }
    await child.stdout.cancel().catch(() => {});
    await Deno.remove(base, { recursive: true });
  }
});
