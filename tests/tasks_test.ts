// tmux_run as an MCP task, in both eras, through real tmux and zsh: a 2025-11-25 task-augmented
// tools/call from the SDK v2 client in legacy mode, and a 2026-07-28 tools/call declaring the
// io.modelcontextprotocol/tasks extension in its per-request client capabilities, each spoken
// by hand and through the official requester, @modelcontextprotocol/ext-tasks. The 2026 requests
// go over a raw path (the SDK v2 client refuses to send tasks/* on a 2026 connection, its era
// gate, which is why ext-tasks takes a rawDispatch from its host).
import assert from "node:assert/strict";
import {
  Client,
  createTaskSessionFromClient,
  InMemoryTransport,
  type JsonRpcResponse,
  resultFromTaskOutcome,
} from "./test_deps.ts";
import { serveStdio } from "../lib/deps.ts";
import {
  expectedText,
  type Lab,
  type Payload,
  processExists,
  type Session,
  waitFor,
  withLab,
  withServer,
} from "./harness.ts";
import { schemas } from "../lib/run/contract.ts";
import { MAX_TASKS } from "../lib/mcp/tasks/task_store.ts";
import { ajvAccepts } from "./schema_oracle.ts";

const ENROLL = ["--enable-tool", "tmux_run", "--enroll-pane", "%0=SETUP"];

/** A result schema that keeps the answer as it came: the tests assert its fields themselves. */
const ANY = {
  "~standard": {
    version: 1 as const,
    vendor: "tasks-test",
    validate: (value: unknown) => ({ value }),
  },
};

/** A request from the SDK v2 client with an explicit result schema (tasks/* have none). */
async function ask(s: Session, method: string, params: Record<string, unknown>): Promise<Payload> {
  return await s.client.request({ method, params }, ANY);
}

function enrolled(fn: (lab: Lab, s: Session) => Promise<void>): () => Promise<void> {
  return () =>
    withLab((lab) =>
      withServer(lab, ENROLL.map((flag) => flag.replace("%0", lab.pane)), async (s) => {
        await s.enroll();
        await fn(lab, s);
      })
    );
}

function runArgs(lab: Lab, s: Session, script: string) {
  return { target: { kind: "pane", id: lab.pane, generation: s.generation }, script };
}

/** The script's shell and a background child in its group, both written to `pidFile`. */
function longScript(pidFile: string): string {
  return `sleep 600 & echo $$ $! > '${pidFile}'; wait`;
}

async function groupPids(pidFile: string): Promise<number[]> {
  const text = await waitFor(
    "the script to start",
    () => Deno.readTextFile(pidFile).then((t) => t.trim().includes(" ") && t).catch(() => ""),
  );
  const pids = text.trim().split(" ").map(Number);
  for (const pid of pids) assert.ok(await processExists(pid), "the script is not running");
  return pids;
}

async function assertGone(pids: number[]): Promise<void> {
  for (const pid of pids) {
    await waitFor(
      `process ${pid} of the script's group to end`,
      async () => !await processExists(pid),
    );
  }
}

function payloadOf(result: Payload): Payload {
  const payload = result.structuredContent;
  assert.equal(result.content[0].text, expectedText("tmux_run", payload));
  assert.ok(ajvAccepts(schemas.tmuxRunOutput, payload), "the payload breaks tmux_run's schema");
  return payload;
}

Deno.test(
  "2025-11-25: a task-augmented tmux_run is a task at once, and tasks/result gives its result",
  enrolled(async (lab, s) => {
    assert.equal(s.client.getNegotiatedProtocolVersion(), "2025-11-25");
    const capabilities = s.client.getServerCapabilities();
    assert.deepEqual(capabilities?.tasks, {
      requests: { tools: { call: {} } },
      list: {},
      cancel: {},
    });
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.find((tool) => tool.name === "tmux_run")?.execution, {
      taskSupport: "optional",
    });
    const created = await ask(s, "tools/call", {
      name: "tmux_run",
      arguments: runArgs(lab, s, "sleep 3; echo done"),
      task: { ttl: 60_000 },
    });
    const { taskId, status, ttl } = created.task;
    assert.equal(status, "working");
    assert.equal(ttl, 60_000);
    const working = await ask(s, "tasks/get", { taskId });
    assert.equal(working.status, "working");
    const listed = await ask(s, "tasks/list", {});
    assert.deepEqual(listed.tasks.map((task: { taskId: string }) => task.taskId), [taskId]);
    const result = await ask(s, "tasks/result", { taskId });
    const payload = payloadOf(result);
    assert.equal(payload.ok, true);
    assert.equal(payload.data.stdout.data, "done\n");
    assert.deepEqual(result._meta["io.modelcontextprotocol/related-task"], { taskId });
    const done = await ask(s, "tasks/get", { taskId });
    assert.equal(done.status, "completed");
    await assert.rejects(
      ask(s, "tasks/cancel", { taskId }),
      /already completed/,
    );
  }),
);

Deno.test(
  "2025-11-25: tasks/cancel stops a task's script with its whole process group",
  enrolled(async (lab, s) => {
    const pidFile = `${lab.dir}/group.pid`;
    const created = await ask(s, "tools/call", {
      name: "tmux_run",
      arguments: runArgs(lab, s, longScript(pidFile)),
      task: {},
    });
    const { taskId } = created.task;
    const pids = await groupPids(pidFile);
    const cancelled = await ask(s, "tasks/cancel", { taskId });
    assert.equal(cancelled.status, "cancelled");
    const result = await ask(s, "tasks/result", { taskId });
    const payload = payloadOf(result);
    assert.equal(payload.error.code, "cancelled");
    await assertGone(pids);
    const after = await ask(s, "tasks/get", { taskId });
    assert.equal(after.status, "cancelled");
  }),
);

Deno.test(
  "2025-11-25: a task whose ttl is shorter than its run still has its result after the run ends",
  enrolled(async (lab, s) => {
    const created = await ask(s, "tools/call", {
      name: "tmux_run",
      arguments: runArgs(lab, s, "sleep 0.5; echo kept"),
      task: { ttl: 1 },
    });
    const { taskId } = created.task;
    const payload = payloadOf(await ask(s, "tasks/result", { taskId }));
    assert.equal(payload.data.stdout.data, "kept\n");
    const after = await ask(s, "tasks/get", { taskId });
    assert.equal(after.status, "completed");
    assert.equal(payloadOf(await ask(s, "tasks/result", { taskId })).data.stdout.data, "kept\n");
  }),
);

Deno.test(
  "2025-11-25: a task dropped to make room is named as such, with the cap, on tasks/get",
  enrolled(async (lab, s) => {
    const start = async () => {
      const created = await ask(s, "tools/call", {
        name: "tmux_run",
        arguments: runArgs(lab, s, "true"),
        task: {},
      });
      return String(created.task.taskId);
    };
    // One shell runs one script at a time, so most of these end at once refused: still finished.
    const first = await Promise.all(Array.from({ length: MAX_TASKS }, start));
    for (const taskId of first) await ask(s, "tasks/result", { taskId });
    await start();
    await assert.rejects(
      ask(s, "tasks/get", { taskId: first[0] }),
      new RegExp(`dropped to make room: it keeps at most ${MAX_TASKS} tasks`),
    );
    await assert.rejects(
      ask(s, "tasks/get", { taskId: "0".repeat(32) }),
      /names no task of this server/,
    );
    assert.match((await ask(s, "tasks/get", { taskId: first[1] })).status, /^(completed|failed)$/);
  }),
);

/** A raw 2026-07-28 connection to the same server: requests carrying the per-request envelope. */
async function withModernConnection(
  s: Session,
  fn: (
    request: (method: string, params: Record<string, unknown>) => Promise<Answer>,
  ) => Promise<void>,
): Promise<void> {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const connection = serveStdio(s.server.mcpServer, { transport: server });
  const waiting = new Map<number, (answer: Answer) => void>();
  client.onmessage = (message) => {
    if ("id" in message && typeof message.id === "number") {
      waiting.get(message.id)?.(message as Answer);
    }
  };
  await client.start();
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    "io.modelcontextprotocol/clientCapabilities": {
      extensions: { "io.modelcontextprotocol/tasks": {} },
    },
  };
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) => {
    const id = nextId++;
    const answer = new Promise<Answer>((resolve) => waiting.set(id, resolve));
    client.send({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope } });
    return answer;
  };
  try {
    await fn(request);
  } finally {
    await client.close();
    await connection.close();
  }
}

// deno-lint-ignore no-explicit-any
type Answer = { result?: any; error?: { code: number; message: string } };

Deno.test(
  "2026-07-28: a tools/call declaring the tasks extension is a task that completes with the payload",
  enrolled(async (lab, s) => {
    await withModernConnection(s, async (request) => {
      const discovered = await request("server/discover", {});
      assert.deepEqual(
        discovered.result.capabilities.extensions["io.modelcontextprotocol/tasks"],
        {},
      );
      const created = await request("tools/call", {
        name: "tmux_run",
        arguments: runArgs(lab, s, "sleep 3; echo done"),
      });
      assert.equal(created.result.resultType, "task");
      assert.equal(created.result.status, "working");
      const { taskId } = created.result;
      const first = await request("tasks/get", { taskId });
      assert.equal(first.result.status, "working");
      const done = await waitFor("the task to complete", async () => {
        const got = await request("tasks/get", { taskId });
        return got.result.status === "completed" && got.result;
      });
      assert.equal(done.result.resultType, "complete");
      const payload = payloadOf(done.result);
      assert.equal(payload.ok, true);
      assert.equal(payload.data.stdout.data, "done\n");
    });
  }),
);

Deno.test(
  "2026-07-28: tasks/cancel stops the script's process group and the task reads cancelled",
  enrolled(async (lab, s) => {
    await withModernConnection(s, async (request) => {
      const pidFile = `${lab.dir}/group.pid`;
      const created = await request("tools/call", {
        name: "tmux_run",
        arguments: runArgs(lab, s, longScript(pidFile)),
      });
      const { taskId } = created.result;
      const pids = await groupPids(pidFile);
      const cancelled = await request("tasks/cancel", { taskId });
      assert.equal(cancelled.error, undefined);
      await assertGone(pids);
      const after = await request("tasks/get", { taskId });
      assert.equal(after.result.status, "cancelled");
      const update = await request("tasks/update", { taskId, inputResponses: {} });
      assert.equal(update.error?.code, -32601);
    });
  }),
);

Deno.test(
  "2025-11-25: the official requester (ext-tasks) runs tmux_run as a task to its result",
  enrolled(async (lab, s) => {
    const session = createTaskSessionFromClient(s.client, { endpointId: "tasks-test" });
    try {
      const execution = await session.callTool(
        "tmux_run",
        runArgs(lab, s, "sleep 3; echo via-ext-tasks"),
        { task: { preference: "require" } },
      );
      const { outcome } = await execution.settle();
      assert.equal(outcome.status, "completed", JSON.stringify(outcome));
      const result = resultFromTaskOutcome(outcome);
      const payload = payloadOf(result);
      assert.equal(payload.ok, true);
      assert.equal(payload.data.stdout.data, "via-ext-tasks\n");
    } finally {
      await session.close();
    }
  }),
);

Deno.test(
  "2026-07-28: the official requester (ext-tasks, with its raw path) runs tmux_run as a task",
  enrolled(async (lab, s) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const connection = serveStdio(s.server.mcpServer, { transport: serverSide });
    const modern = new Client({ name: "ext-tasks", version: "1" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    await modern.connect(clientSide);
    // ext-tasks sends the extension's requests itself, on a path the SDK client does not gate.
    const [rawSide, rawServerSide] = InMemoryTransport.createLinkedPair();
    const rawConnection = serveStdio(s.server.mcpServer, { transport: rawServerSide });
    const waiting = new Map<unknown, (answer: JsonRpcResponse) => void>();
    rawSide.onmessage = (message) => {
      if (!("id" in message)) return;
      // As the answer would read off a wire: plain JSON, whatever the SDK's types say of it.
      const answer = JSON.parse(JSON.stringify(message));
      const settle = waiting.get(message.id);
      if ("result" in answer) settle?.({ kind: "result", result: answer.result });
      if ("error" in answer) settle?.({ kind: "error", error: answer.error });
    };
    await rawSide.start();
    let nextId = 1;
    const session = createTaskSessionFromClient(modern, {
      endpointId: "tasks-test-2026",
      // ext-tasks hands over {method, params}; the host frames it as a request of its own.
      rawDispatch: (request) =>
        new Promise((resolve) => {
          const id = nextId++;
          waiting.set(id, resolve);
          rawSide.send({ jsonrpc: "2.0", id, ...JSON.parse(JSON.stringify(request)) });
        }),
      v2RequestFraming: {
        protocolVersion: "2026-07-28",
        clientInfo: { name: "ext-tasks", version: "1" },
        clientCapabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
      },
    });
    try {
      assert.equal(modern.getNegotiatedProtocolVersion(), "2026-07-28");
      const execution = await session.callTool(
        "tmux_run",
        runArgs(lab, s, "sleep 3; echo via-ext-tasks-2026"),
        { task: { preference: "require" } },
      );
      const { outcome } = await execution.settle();
      assert.equal(outcome.status, "completed", JSON.stringify(outcome));
      const payload = payloadOf(resultFromTaskOutcome(outcome));
      assert.equal(payload.data.stdout.data, "via-ext-tasks-2026\n");
    } finally {
      await session.close();
      await modern.close();
      await rawSide.close();
      await Promise.all([connection.close(), rawConnection.close()]);
    }
  }),
);
