// JSON-RPC as MCP clients expect it from the server process, spoken line by line over real
// stdio, malformed messages included (the SDK client cannot send those): an unknown tool is
// -32602 while a known but unselected one keeps its policy_denied result; malformed params are
// -32602 with one line; a missing resource is -32602; a line that is not JSON is -32700; a line
// over the 10 MiB read limit is answered when its id can be read, wherever the id sits, and
// otherwise ends the server with a stderr line and a non-zero status, never silently.
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import { MAX_LINE_BYTES } from "../lib/mcp/wire/stdio_transport.ts";
import { clientEnvironment, type Payload } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

type Raw = {
  send: (line: string | object) => Promise<void>;
  next: () => Promise<Payload>;
  request: (id: number, method: string, params?: unknown) => Promise<Payload>;
  finish: () => Promise<{ code: number; stderr: string }>;
};

/** The server as its own process, on a socket with no tmux server, spoken to in raw lines. */
async function withRawServer(
  env: Record<string, string>,
  fn: (raw: Raw) => Promise<void>,
  protocolVersion = "2025-06-18",
) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--socket-name", `absent-${randomHex(6)}`],
    env: clientEnvironment(env),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffered = "";
  const next = async (): Promise<Payload> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`stdout ended; stderr: ${await stderr}`);
      buffered += value;
    }
    const end = buffered.indexOf("\n");
    const line = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    return JSON.parse(line);
  };
  const send = async (line: string | object) => {
    await writer.write(
      new TextEncoder().encode(`${typeof line === "string" ? line : JSON.stringify(line)}\n`),
    );
  };
  const request = async (id: number, method: string, params?: unknown) => {
    await send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return await next();
  };
  let finished: { code: number; stderr: string } | null = null;
  const finish = async () => {
    await writer.close().catch(() => {});
    finished ??= { code: (await child.status).code, stderr: await stderr };
    lines.releaseLock();
    await child.stdout.cancel().catch(() => {});
    return finished;
  };
  try {
    const init = await request(0, "initialize", {
      protocolVersion,
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    assert.ok(init.result?.serverInfo, JSON.stringify(init));
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await fn({ send, next, request, finish });
  } finally {
    await finish();
  }
}

function assertError(response: Payload, id: number | null, code: number) {
  assert.equal(response.id, id, JSON.stringify(response));
  assert.equal(response.error?.code, code, JSON.stringify(response));
  assert.ok(!response.error.message.includes("\n"), "the message is one line");
}

Deno.test("a name that is no tool is -32602; a known tool not selected is policy_denied", () =>
  withRawServer({ LIBTMUX_TOOLSETS: "inspect" }, async ({ request }) => {
    assertError(await request(1, "tools/call", { name: "no_such_tool", arguments: {} }), 1, -32602);
    const denied = await request(2, "tools/call", { name: "kill_server", arguments: {} });
    assert.equal(denied.result?.isError, true, JSON.stringify(denied));
    assert.equal(denied.result.structuredContent.error.code, "policy_denied");
  }));

Deno.test("malformed params are -32602 with one line naming the field", () =>
  withRawServer({}, async ({ request }) => {
    const noName = await request(1, "tools/call", { arguments: {} });
    assertError(noName, 1, -32602);
    assert.match(noName.error.message, /params\.name/);
    const badArguments = await request(2, "tools/call", { name: "list_panes", arguments: 5 });
    assertError(badArguments, 2, -32602);
    assert.match(badArguments.error.message, /params\.arguments/);
    const noUri = await request(3, "resources/read", {});
    assertError(noUri, 3, -32602);
    assert.match(noUri.error.message, /params\.uri/);
    assertError(await request(4, "prompts/get", { name: 7 }), 4, -32602);
    assertError(await request(5, "tools/call", "list_panes"), 5, -32602);
    const nullArguments = await request(7, "tools/call", { name: "list_panes", arguments: null });
    assertError(nullArguments, 7, -32602);
    assert.match(nullArguments.error.message, /params\.arguments/);
    assert.ok("result" in await request(6, "ping"), "the server still answers");
  }));

// MCP 2026-07-28 answers a resource that is not there with -32602 (the SDK applies it to both
// eras; clients also accept the older -32002).
Deno.test("a missing resource is -32602, naming the URI's problem", () =>
  withRawServer({}, async ({ request }) => {
    const unknown = await request(1, "resources/read", { uri: "tmux://elsewhere" });
    assertError(unknown, 1, -32602);
    assert.match(unknown.error.message, /no tmux resource has that URI/);
    assertError(await request(2, "resources/read", { uri: "tmux://panes/%25999" }), 2, -32602);
  }));

Deno.test("not JSON is -32700, not one JSON-RPC object is -32600, and the session goes on", () =>
  withRawServer({}, async ({ send, next, request }) => {
    await send("{this is not json");
    assertError(await next(), null, -32700);
    await send({ jsonrpc: "1.0", id: 9, method: "ping" });
    assertError(await next(), 9, -32600);
    await send([{ jsonrpc: "2.0", id: 10, method: "ping" }]);
    assertError(await next(), null, -32600);
    await send({});
    assertError(await next(), null, -32600);
    assert.ok("result" in await request(2, "ping"));
  }));

const PADDING = "A".repeat(MAX_LINE_BYTES);

Deno.test("a request over 10 MiB is answered -32600 whether its id comes first or last", () =>
  withRawServer({}, async ({ send, next, request }) => {
    await send(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_panes",` +
        `"arguments":{"pad":"${PADDING}","id":99,"nested":{"id":98}}}}`,
    );
    const first = await next();
    assertError(first, 7, -32600);
    assert.match(first.error.message, /10485760 bytes/);
    // The SDK's client writes the id last.
    await send(
      `{"method":"tools/call","params":{"name":"x","arguments":{"pad":"${PADDING}"}},` +
        `"jsonrpc":"2.0","id":"req-8"}`,
    );
    const second = await next();
    assert.equal(second.id, "req-8");
    assert.equal(second.error.code, -32600);
    assert.ok("result" in await request(3, "ping"), "the server still answers");
  }));

Deno.test("a line over 10 MiB with no id ends the server with a stderr line and status 1", () =>
  withRawServer({}, async ({ send, finish }) => {
    await send(`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"${PADDING}"}}`);
    const { code, stderr } = await finish();
    assert.equal(code, 1);
    assert.match(stderr, /longer than 10485760 bytes arrived with no id/);
  }));

Deno.test("a batch after 2025-03-26 is answered as one array; on later revisions it is refused", async () => {
  await withRawServer({}, async ({ send, next }) => {
    await send([
      { jsonrpc: "2.0", id: 1, method: "ping" },
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: 1, progress: 1 },
      },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "no_such_tool" } },
      { jsonrpc: "2.0", id: 3, method: "ping", params: [] },
    ]);
    const answers = await next();
    assert.ok(Array.isArray(answers), JSON.stringify(answers));
    const byId = new Map(answers.map((answer: Payload) => [answer.id, answer]));
    assert.deepEqual([...byId.keys()].sort(), [1, 2, 3]);
    assert.ok("result" in byId.get(1));
    assert.equal(byId.get(2).error.code, -32602);
    assert.equal(byId.get(3).error.code, -32602);
  }, "2025-03-26");
  await withRawServer({}, async ({ send, next }) => {
    await send([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    const refused = await next();
    assertError(refused, null, -32600);
    assert.match(refused.error.message, /2025-03-26 only/);
  }, "2025-11-25");
});
