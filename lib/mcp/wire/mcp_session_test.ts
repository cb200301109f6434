// The MCP session without a process or tmux: a transport of two arrays, driven message by
// message. What the SDK's Server did for us must still hold: version negotiation, -32601 for an
// unknown method, -32602 naming the field, a cancelled request's handler aborted and its late
// answer never sent, progress only for a request that asked, the log level honoured.
import assert from "node:assert/strict";
import type { JSONRPCMessage, Transport } from "../../deps.ts";
import { McpSession, PROTOCOL_VERSIONS, type RequestContext } from "./mcp_session.ts";
import { callToolParams } from "./request_params.ts";
import { isJsonObject } from "../../json_object.ts";

type Wire = { sent: JSONRPCMessage[]; deliver: (message: JSONRPCMessage) => void };

async function session(): Promise<{ mcp: McpSession; wire: Wire }> {
  const mcp = new McpSession({
    serverInfo: { name: "test", version: "0" },
    capabilities: { tools: {} },
    instructions: "none",
  });
  const sent: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: () => Promise.resolve(),
    close: () => Promise.resolve(transport.onclose?.()),
    send: (message: JSONRPCMessage) => Promise.resolve(void sent.push(message)),
  };
  await mcp.connect(transport);
  return { mcp, wire: { sent, deliver: (message) => transport.onmessage?.(message) } };
}

/** Lets queued promise callbacks run, so a delivered request's answer is sent. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function answerTo(wire: Wire, id: number): JSONRPCMessage {
  const found = wire.sent.find((message) => "id" in message && message.id === id);
  if (!found) throw new Error(`no answer to request ${id}: ${JSON.stringify(wire.sent)}`);
  return found;
}

function resultOf(wire: Wire, id: number): Record<string, unknown> {
  const answer = answerTo(wire, id);
  if (!("result" in answer) || !isJsonObject(answer.result)) {
    throw new Error(`request ${id} was not answered with a result: ${JSON.stringify(answer)}`);
  }
  return answer.result;
}

function errorOf(wire: Wire, id: number): { code: number; message: string } {
  const answer = answerTo(wire, id);
  if (!("error" in answer)) {
    throw new Error(`request ${id} did not fail: ${JSON.stringify(answer)}`);
  }
  return answer.error;
}

const clientInfo = { name: "c", version: "1" };

Deno.test("initialize echoes a version it speaks and offers its newest otherwise", async () => {
  const { wire } = await session();
  const capabilities = {};
  wire.deliver({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities, clientInfo },
  });
  wire.deliver({
    jsonrpc: "2.0",
    id: 2,
    method: "initialize",
    params: { protocolVersion: "1999-01-01", capabilities, clientInfo },
  });
  await settle();
  assert.equal(resultOf(wire, 1).protocolVersion, "2025-06-18");
  assert.deepEqual(resultOf(wire, 1).serverInfo, { name: "test", version: "0" });
  assert.equal(resultOf(wire, 1).instructions, "none");
  assert.equal(resultOf(wire, 2).protocolVersion, PROTOCOL_VERSIONS[0]);
});

Deno.test("an unknown method is -32601, wrong params -32602 naming the field, on one line", async () => {
  const { mcp, wire } = await session();
  mcp.handle("tools/call", callToolParams, () => {
    throw new Error("a handler's error\nspread over lines");
  });
  wire.deliver({ jsonrpc: "2.0", id: 1, method: "no/such" });
  wire.deliver({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: 5 } });
  wire.deliver({ jsonrpc: "2.0", id: 3, method: "initialize", params: { protocolVersion: "x" } });
  wire.deliver({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "x" } });
  wire.deliver({ jsonrpc: "2.0", id: 5, method: "ping" });
  await settle();
  assert.equal(errorOf(wire, 1).code, -32601);
  assert.deepEqual(errorOf(wire, 2), { code: -32602, message: "params.name: must be a string" });
  assert.deepEqual(errorOf(wire, 3), {
    code: -32602,
    message: "params.capabilities: must be an object",
  });
  assert.deepEqual(errorOf(wire, 4), {
    code: -32603,
    message: "a handler's error spread over lines",
  });
  assert.deepEqual(resultOf(wire, 5), {});
});

Deno.test("a cancelled request's handler is aborted and its late answer is not sent", async () => {
  const { mcp, wire } = await session();
  let seen: RequestContext | null = null;
  const { promise: release, resolve } = Promise.withResolvers<void>();
  mcp.handle("tools/call", callToolParams, async (_params, context) => {
    seen = context;
    await release;
    return { content: [] };
  });
  wire.deliver({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow" } });
  await settle();
  assert.ok(seen !== null, "the handler started");
  const started: RequestContext = seen;
  assert.equal(started.signal.aborted, false);
  wire.deliver({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } });
  assert.equal(started.signal.aborted, true, "the handler's signal is aborted");
  resolve();
  await settle();
  assert.deepEqual(wire.sent, [], "nothing answers a cancelled request");
});

Deno.test("progress goes out only for a request that asked, with its token", async () => {
  const { mcp, wire } = await session();
  mcp.handle("tools/call", callToolParams, (_params, context) => {
    context.progress?.(1, "halfway");
    return { content: [] };
  });
  wire.deliver({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "quiet" } });
  wire.deliver({
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "loud", _meta: { progressToken: "p-2" } },
  });
  await settle();
  const notes = wire.sent.filter((message) => "method" in message);
  assert.deepEqual(notes, [{
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "p-2", progress: 1, message: "halfway" },
  }]);
});

Deno.test("log messages below the level the client set are not sent", async () => {
  const { mcp, wire } = await session();
  await mcp.notify("notifications/message", { level: "info", data: "before" });
  wire.deliver({ jsonrpc: "2.0", id: 1, method: "logging/setLevel", params: { level: "error" } });
  await settle();
  await mcp.notify("notifications/message", { level: "warning", data: "dropped" });
  await mcp.notify("notifications/message", { level: "critical", data: "kept" });
  const data = wire.sent.flatMap((m) =>
    "method" in m && m.method === "notifications/message" ? [m.params?.data] : []
  );
  assert.deepEqual(data, ["before", "kept"]);
});
