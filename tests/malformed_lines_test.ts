// Every request line gets an answer, whatever it holds: the shapes @modelcontextprotocol/server
// 2.4.0 drops unanswered (a `_meta` that is not an object, a progress token of the wrong type or
// depth, an id beyond 2^53) in both protocol eras, before and after the opening handshake, and a
// fuzz set of malformed lines, each answered with the code that fits and the id as sent, or, for
// a notification, ignored with the server still answering. Lines go one at a time over real
// stdio to one server process per case; every wait is bounded, so a missing answer fails the
// test instead of hanging it.
import assert from "node:assert/strict";
import { randomHex } from "../lib/util/ids.ts";
import { MAX_LINE_BYTES } from "../lib/mcp/wire/stdio_transport.ts";
import { clientEnvironment, type Payload } from "./harness.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
/** How long an answer may take before the test calls it missing. */
const ANSWER_MS = 15_000;
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

type Answer = { text: string; json: Payload };

type Lines = {
  /** Sends one line (its newline added unless it is bytes) and reads the one answer to it. */
  exchange: (line: string | Uint8Array) => Promise<Answer>;
  /** Sends a line that must get no answer: the next answer is a ping's sent after it. */
  ignored: (line: string | Uint8Array) => Promise<void>;
};

/** The server as its own process on a socket with no tmux server, spoken to line by line. */
async function withLines(fn: (lines: Lines) => Promise<void>): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--quiet", MAIN, "--socket-name", `absent-${randomHex(6)}`],
    env: clientEnvironment(),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let buffered = "";
  let reading: Promise<ReadableStreamReadResult<string>> | null = null;
  const nextLine = async (): Promise<string> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<null>((resolve) =>
      timer = setTimeout(() => resolve(null), ANSWER_MS)
    );
    try {
      while (!buffered.includes("\n")) {
        const read = await Promise.race([reading ??= reader.read(), expired]);
        if (read === null) throw new Error(`no answer within ${ANSWER_MS} ms`);
        reading = null;
        if (read.done) throw new Error("the server's stdout ended");
        buffered += read.value;
      }
    } finally {
      clearTimeout(timer);
    }
    const end = buffered.indexOf("\n");
    const text = buffered.slice(0, end);
    buffered = buffered.slice(end + 1);
    return text;
  };
  const send = (line: string | Uint8Array) =>
    writer.write(typeof line === "string" ? new TextEncoder().encode(`${line}\n`) : line);
  const exchange = async (line: string | Uint8Array): Promise<Answer> => {
    await send(line);
    const text = await nextLine();
    return { text, json: JSON.parse(text) };
  };
  let sentinel = 0;
  const ignored = async (line: string | Uint8Array) => {
    await send(line);
    const id = `sentinel-${sentinel++}`;
    const answer = await exchange(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
    assert.equal(answer.json.id, id, `the line was answered: ${answer.text.slice(0, 200)}`);
    assert.ok("result" in answer.json, answer.text);
  };
  let failure: unknown = null;
  try {
    await fn({ exchange, ignored });
  } catch (error) {
    failure = error;
  } finally {
    await writer.close().catch(() => {});
    await reader.cancel().catch(() => {});
    let timer: ReturnType<typeof setTimeout> | undefined;
    const closed = await Promise.race([
      child.status,
      new Promise((resolve) => timer = setTimeout(resolve, 10_000)),
    ]);
    clearTimeout(timer);
    if (!closed) child.kill("SIGKILL");
    await child.status;
  }
  const log = await stderr;
  if (failure) {
    throw new Error(`${failure}; server stderr: ${log.slice(-2000)}`, { cause: failure });
  }
}

function assertError(answer: Answer, id: unknown, code: number, line: string) {
  assert.deepEqual(answer.json.id, id, `${line.slice(0, 120)} → ${answer.text.slice(0, 300)}`);
  assert.equal(
    answer.json.error?.code,
    code,
    `${line.slice(0, 120)} → ${answer.text.slice(0, 300)}`,
  );
  assert.ok(answer.json.error.message.length <= 300, "the message is one bounded line");
}

const DEEP_TOKEN = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
const DEEP_OBJECT = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
const METHODS = ["tools/call", "tools/list", "ping"];
const BIG_IDS = ["9007199254740993", "18446744073709551616"];

/**
 * The lines the SDK drops, for one era: a request with the given id text and the given `_meta`
 * text, for each method. `envelope` adds the 2026-07-28 per-request keys where `_meta` is an
 * object, so the line is that era's.
 */
function droppedShapes(
  envelope: boolean,
): { line: (id: string) => string; code: number; raw?: string }[] {
  const envelopeKeys = envelope ? `${JSON.stringify(ENVELOPE).slice(1, -1)},` : "";
  const shapes: { line: (id: string) => string; code: number; raw?: string }[] = [];
  for (const method of METHODS) {
    const head = method === "tools/call" ? '"name":"list_sessions","arguments":{},' : "";
    const request = (id: string, meta: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{${head}"_meta":${meta}}}`;
    for (const meta of ["null", "[]", '"x"', "5"]) {
      shapes.push({ line: (id) => request(id, meta), code: -32602 });
    }
    for (const token of ["null", "1.5", "{}", "[]", DEEP_TOKEN, DEEP_OBJECT]) {
      shapes.push({
        line: (id) => request(id, `{${envelopeKeys}"progressToken":${token}}`),
        code: -32602,
      });
    }
    for (const big of BIG_IDS) {
      shapes.push({
        line: () => request(big, `{${envelopeKeys.slice(0, -1)}}`),
        code: -32600,
        raw: big,
      });
    }
  }
  return shapes;
}

/** Sends every dropped shape and checks each answer's code and id (the digits, for a big id). */
async function everyShapeAnswered({ exchange }: Lines, envelope: boolean, prefix: string) {
  let n = 0;
  for (const shape of droppedShapes(envelope)) {
    const id = `"${prefix}-${n++}"`;
    const line = shape.line(id);
    const answer = await exchange(line);
    if (shape.raw) {
      assert.ok(
        answer.text.includes(`"id":${shape.raw},`),
        `the digits are echoed: ${answer.text}`,
      );
      assertError(answer, Number(shape.raw), shape.code, line);
    } else {
      assertError(answer, JSON.parse(id), shape.code, line);
    }
  }
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

async function initialize({ exchange, ignored }: Lines, protocolVersion: string) {
  const answer = await exchange(INITIALIZE.replace("2025-06-18", protocolVersion));
  assert.equal(answer.json.result?.protocolVersion, protocolVersion, answer.text);
  await ignored(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
}

async function discover({ exchange }: Lines) {
  const answer = await exchange(
    JSON.stringify({
      jsonrpc: "2.0",
      id: "discover",
      method: "server/discover",
      params: { _meta: ENVELOPE },
    }),
  );
  assert.ok(answer.json.result, answer.text);
}

async function toolsStillListed({ exchange }: Lines, envelope: boolean) {
  const params = envelope ? { _meta: ENVELOPE } : {};
  const answer = await exchange(
    JSON.stringify({ jsonrpc: "2.0", id: "list", method: "tools/list", params }),
  );
  assert.ok(answer.json.result?.tools?.length > 0, answer.text.slice(0, 300));
}

for (const version of ["2025-06-18", "2025-11-25"]) {
  Deno.test(`${version}: the shapes the SDK drops are answered before and after initialize`, () =>
    withLines(async (lines) => {
      await everyShapeAnswered(lines, false, "before");
      await initialize(lines, version);
      await everyShapeAnswered(lines, false, "after");
      await toolsStillListed(lines, false);
    }));
}

Deno.test("2026-07-28: the shapes the SDK drops are answered before and after server/discover", () =>
  withLines(async (lines) => {
    await everyShapeAnswered(lines, true, "before");
    await discover(lines);
    await everyShapeAnswered(lines, true, "after");
    await toolsStillListed(lines, true);
  }));

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(
    parts.flatMap((part) => typeof part === "string" ? [...new TextEncoder().encode(part)] : part),
  );

/**
 * Malformed requests and the code each is answered with (null id where none can be read; 0 for a
 * result, a tool's own refusal included: deep arguments reach the tool, which names the field).
 */
const FUZZ_REQUESTS: { line: string | Uint8Array; id: unknown; code: number; raw?: string }[] = [
  { line: '{"jsonrpc":"2.0","id":1,"method":"pi', id: null, code: -32700 },
  { line: '{"jsonrpc":"2.0","id":2,"method":"ping"', id: null, code: -32700 },
  { line: "not json at all", id: null, code: -32700 },
  { line: '{"jsonrpc":"1.0","id":3,"method":"ping"}', id: 3, code: -32600 },
  { line: '{"jsonrpc":2.0,"id":4,"method":"ping"}', id: 4, code: -32600 },
  { line: '{"id":5,"method":"ping"}', id: 5, code: -32600 },
  { line: '{"jsonrpc":"2.0","id":6,"method":7}', id: 6, code: -32600 },
  { line: '{"jsonrpc":"2.0","id":7,"method":null}', id: 7, code: -32600 },
  { line: '{"jsonrpc":"2.0","id":8,"method":["ping"]}', id: 8, code: -32600 },
  { line: '{"jsonrpc":"2.0","id":9,"method":"tools/list","params":[]}', id: 9, code: -32602 },
  {
    line: '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":["list_panes"]}',
    id: 10,
    code: -32602,
  },
  { line: '{"jsonrpc":"2.0","id":11,"method":"ping","params":"x"}', id: 11, code: -32602 },
  { line: '{"jsonrpc":"2.0","id":true,"method":"ping"}', id: null, code: -32600 },
  { line: '{"jsonrpc":"2.0","id":{},"method":"ping"}', id: null, code: -32600 },
  { line: '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', id: 1.5, code: -32600 },
  {
    line: '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    id: Infinity,
    code: -32600,
    raw: "1e400",
  },
  {
    line: `{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping","params":{"pad":"${
      "A".repeat(MAX_LINE_BYTES)
    }"}}`,
    id: 2 ** 64,
    code: -32600,
    raw: "18446744073709551616",
  },
  { line: "{}", id: null, code: -32600 },
  { line: "[]", id: null, code: -32600 },
  { line: "42", id: null, code: -32600 },
  { line: '"ping"', id: null, code: -32600 },
  { line: "null", id: null, code: -32600 },
  { line: `${"[".repeat(100_000)}${"]".repeat(100_000)}`, id: null, code: -32600 },
  { line: `{"jsonrpc":"2.0","id":12,"method":"${"m".repeat(1 << 20)}"}`, id: 12, code: -32601 },
  {
    line: `{"jsonrpc":"2.0","id":"${"i".repeat(1 << 16)}","method":"nope"}`,
    id: "i".repeat(1 << 16),
    code: -32601,
  },
  {
    line: `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"${
      "n".repeat(1 << 20)
    }"}}`,
    id: 13,
    code: -32602,
  },
  {
    line:
      `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"list_panes","arguments":{"a":${DEEP_OBJECT}}}}`,
    id: 14,
    code: 0,
  },
  {
    line: `{"jsonrpc":"2.0","id":15,"method":"tools/list","params":{"deep":${DEEP_OBJECT}}}`,
    id: 15,
    code: 0,
  },
  {
    line: bytes('{"jsonrpc":"2.0","id":16,', [0xff, 0xfe], '"method":"ping"}\n'),
    id: null,
    code: -32700,
  },
  {
    line: bytes('{"jsonrpc":"2.0","id":17,"method":"nope', [0xc3, 0x28, 0x80], '"}\n'),
    id: 17,
    code: -32601,
  },
  { line: bytes('{"jsonrpc":"2.0","id":18,"method":"ping"}\r\n'), id: 18, code: 0 },
  { line: bytes('{"jsonrpc":"2.0","id":19,"method":"ping"}\r\r\n'), id: 19, code: 0 },
  { line: '{"jsonrpc":"2.0","id":20,"method":"ping","extra":true}', id: 20, code: 0 },
  { line: '{"jsonrpc":"2.0","id":21,"method":"\\ud800"}', id: 21, code: -32601 },
  { line: '{"jsonrpc":"2.0","id":22,"method":"ping\\u0000"}', id: 22, code: -32601 },
  { line: '{"jsonrpc":"2.0","id":23,"id":24,"method":"ping"}', id: 24, code: 0 },
  { line: '{"jsonrpc":"2.0","id":-1,"method":"ping"}', id: -1, code: 0 },
  { line: '{"jsonrpc":"2.0","id":"","method":"ping"}', id: "", code: 0 },
  {
    line:
      '{"jsonrpc":"2.0","id":25,"method":"tools/call","params":{"name":"list_panes","arguments":[]}}',
    id: 25,
    code: -32602,
  },
  {
    line:
      '{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/related-task":5}}}',
    id: 26,
    code: -32602,
  },
];

/** Malformed notifications and stray responses: nothing to answer, and the server goes on. */
const FUZZ_IGNORED: (string | Uint8Array)[] = [
  "",
  "   ",
  "\r",
  bytes("\r\n"),
  '{"jsonrpc":"2.0","method":"notifications/x","params":{"_meta":null}}',
  '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":{},"progress":"x"}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":[]}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized","params":[]}',
  `{"jsonrpc":"2.0","method":"notifications/x","params":{"deep":${DEEP_OBJECT}}}`,
  '{"jsonrpc":"2.0","id":999,"result":{}}',
  '{"jsonrpc":"2.0","id":998,"error":{"code":1,"message":"x"}}',
];

async function fuzz(lines: Lines) {
  for (const { line, id, code, raw } of FUZZ_REQUESTS) {
    const label = typeof line === "string" ? line : new TextDecoder().decode(line);
    const answer = await lines.exchange(line);
    if (raw) assert.ok(answer.text.includes(`"id":${raw},`), `the id as sent: ${answer.text}`);
    if (code === 0) {
      assert.deepEqual(answer.json.id, id, `${label.slice(0, 120)} → ${answer.text.slice(0, 300)}`);
      assert.ok("result" in answer.json, `${label.slice(0, 120)} → ${answer.text.slice(0, 300)}`);
    } else {
      assertError(answer, id, code, label);
    }
  }
  for (const line of FUZZ_IGNORED) await lines.ignored(line);
}

Deno.test("fuzz: malformed lines are answered or ignored, before and after initialize; tools/list still answers", () =>
  withLines(async (lines) => {
    await fuzz(lines);
    await initialize(lines, "2025-11-25");
    await fuzz(lines);
    await toolsStillListed(lines, false);
  }));

Deno.test("fuzz on 2026-07-28: malformed lines are answered or ignored; tools/list still answers", () =>
  withLines(async (lines) => {
    await discover(lines);
    await fuzz(lines);
    await toolsStillListed(lines, true);
  }));
