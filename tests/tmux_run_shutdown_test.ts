// Shutdown of a real server process with two runs in flight: stdin closed (exit 0) and SIGTERM
// (exit 143). Both calls are answered with `closed` and what the stop confirmed, no process of
// either script's group remains, and the server's private directory is gone. A directory left by
// a SIGKILLed server whose guard was killed with it (a kill of its process group) is removed at
// the next start.
import assert from "node:assert/strict";
import {
  childrenWithArgv,
  isDirectoryGuard,
  type Lab,
  splitPane,
  waitFor,
  waitForPrompt,
  withLab,
  zshCommand,
} from "./harness.ts";
import { sourceInPane } from "../lib/cli/private_lab.ts";
import { privateBaseDirectory } from "../lib/host/rendezvous.ts";
import { groupMembers } from "../lib/host/processes.ts";
import { schemas } from "../lib/run/contract.ts";
import { ajvAccepts, validationErrors } from "./schema_oracle.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

type Message = { id?: number; result?: { structuredContent?: Record<string, unknown> } };

/** A server process speaking MCP over its stdio, line by line. */
function startServer(lab: Lab, panes: string[]) {
  const setups = panes.map((pane, i) => [pane, `${lab.dir}/setup-${i}`]);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "--socket-name",
      lab.socketName,
      "--enable-tool",
      "tmux_run",
      ...setups.flatMap(([pane, file]) => ["--enroll-pane", `${pane}=${file}`]),
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: Deno.env.get("SHUTDOWN_TEST_STDERR") ? "inherit" : "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const messages: Message[] = [];
  const reading = (async () => {
    let pending = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      pending += chunk;
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        messages.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
      }
    }
  })();
  let nextId = 1;
  const send = (message: object) =>
    writer.write(new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"));
  const request = async (method: string, params: object) => {
    const id = nextId++;
    await send({ id, method, params });
    return id;
  };
  const answer = (id: number) =>
    waitFor(`the answer to request ${id}`, () => messages.find((m) => m.id === id));
  /** Ends the process whatever state the test left it in. */
  const stop = async () => {
    await writer.close().catch(() => {});
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await child.status;
    clearTimeout(timer);
    await reading.catch(() => {});
  };
  return { child, writer, send, request, answer, reading, setups, stop };
}

/** The child of `pid` that guards its private directory, if any. */
async function guardOf(pid: number): Promise<number | null> {
  return (await childrenWithArgv(pid)).find(({ argv }) => isDirectoryGuard(argv))?.pid ?? null;
}

/** The private directory whose record names `pid`, if any. */
async function directoryOf(pid: number): Promise<string | null> {
  const base = await privateBaseDirectory();
  for await (const entry of Deno.readDir(base)) {
    const record = await Deno.readTextFile(`${base}/${entry.name}/server.json`).catch(() => "");
    if (record && JSON.parse(record).pid === pid) return `${base}/${entry.name}`;
  }
  return null;
}

async function shutdownWithRunsInFlight(how: "eof" | "sigterm", expectedStatus: number) {
  await withLab(async (lab) => {
    const second = await splitPane(lab, "--", ...zshCommand(lab.dir));
    await waitForPrompt({ ...lab, pane: second });
    const panes = [lab.pane, second];
    const server = startServer(lab, panes);
    try {
      await waitFor(
        "the setup files",
        () => Promise.all(server.setups.map(([, file]) => Deno.lstat(file))).catch(() => false),
        30_000,
      );
      for (const [pane, file] of server.setups) await sourceInPane(lab, file, pane);
      for (const pane of panes) {
        await waitFor(
          "the pane to be enrolled",
          async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", pane)).includes("enrolled"),
        );
        await waitForPrompt({ ...lab, pane });
      }
      await server.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      }).then(server.answer);
      await server.send({ method: "notifications/initialized" });
      const capabilities = await server.answer(
        await server.request("tools/call", { name: "tmux_capabilities", arguments: {} }),
      );
      const generation = (capabilities.result!.structuredContent!.data as { generation: string })
        .generation;
      const directory = await directoryOf(server.child.pid);
      assert.ok(directory, "the server's private directory");
      const runs = await Promise.all(panes.map((pane, i) =>
        server.request("tools/call", {
          name: "tmux_run",
          arguments: {
            target: { kind: "pane", id: pane, generation },
            script: `echo $$ > '${lab.dir}/sh-${i}.pid'; sleep 30`,
          },
        })
      ));
      const groups = await Promise.all(panes.map((_, i) =>
        waitFor(
          "the script to start",
          () => Deno.readTextFile(`${lab.dir}/sh-${i}.pid`).then(Number).catch(() => 0),
        )
      ));
      if (how === "eof") await server.writer.close();
      else Deno.kill(server.child.pid, "SIGTERM");
      const status = await server.child.status;
      await server.reading;
      assert.equal(status.code, expectedStatus);
      for (const id of runs) {
        const payload = (await server.answer(id)).result!.structuredContent!;
        assert.ok(
          ajvAccepts(schemas.tmuxRunOutput, payload),
          validationErrors(schemas.tmuxRunOutput, payload),
        );
        const error = payload.error as {
          code: string;
          message: string;
          effects: { state: string };
        };
        assert.equal(error.code, "closed");
        assert.match(error.message, /stopped: no process of the script's group remains/);
        assert.equal(error.effects.state, "known");
      }
      for (const pgid of groups) assert.deepEqual(await groupMembers(pgid), []);
      await assert.rejects(Deno.lstat(directory), "the private directory is left behind");
    } finally {
      await server.stop();
    }
  });
}

Deno.test("stdin closed with two runs in flight: both stopped and answered, exit 0", () =>
  shutdownWithRunsInFlight("eof", 0));

Deno.test("SIGTERM with two runs in flight: both stopped and answered, exit 143", () =>
  shutdownWithRunsInFlight("sigterm", 143));

Deno.test("a directory left by a SIGKILLed server is removed at the next start", () =>
  withLab(async (lab) => {
    const server = startServer(lab, [lab.pane]);
    const directory = await waitFor("the private directory", () => directoryOf(server.child.pid));
    // Its guard would remove the directory once the server is gone (lib/host/directory_guard.ts):
    // killed first, as a SIGKILL of the whole process group would.
    const guard = await waitFor("the directory's guard", () => guardOf(server.child.pid));
    Deno.kill(guard, "SIGKILL");
    await server.writer.close().catch(() => {});
    server.child.kill("SIGKILL");
    await server.child.status;
    await server.reading.catch(() => {});
    await Deno.lstat(directory);
    const next = startServer(lab, []);
    try {
      await waitFor("the next server's directory", () => directoryOf(next.child.pid));
      await assert.rejects(Deno.lstat(directory), "the abandoned directory is still there");
    } finally {
      await next.stop();
    }
    for (const [, file] of server.setups) await Deno.remove(file).catch(() => {});
  }));
