// The server–helper wire without a helper: frames survive any chunking of the byte stream,
// bodies that look like protocol text come back as bytes, and anything out of bounds or not a
// JSON header is refused as MalformedFrame instead of being guessed at.
import assert from "node:assert/strict";
import {
  type ByteSource,
  encodeFrame,
  type Frame,
  MalformedFrame,
  parseHelperMessage,
  readFrames,
} from "./frames.ts";
import { concatBytes } from "../util/bytes.ts";

const RUN = "0123456789abcdef0123456789abcdef";
const TOKEN = "fedcba9876543210fedcba9876543210";
const DIGEST = "a".repeat(64);
const STOP = {
  remaining: 0,
  escapees: 0,
  escapees_left: 0,
  orphans_traced: true,
  halted: 0,
  halt_signal: null,
};

/** The chunks as a connection hands them over: a read takes at most one chunk, or what fits. */
function sourceOf(...chunks: Uint8Array[]): ByteSource {
  const queue = chunks.filter((chunk) => chunk.length > 0);
  return {
    read(into) {
      const chunk = queue[0];
      if (!chunk) return Promise.resolve(null);
      const count = Math.min(into.length, chunk.length);
      into.set(chunk.subarray(0, count));
      if (count === chunk.length) queue.shift();
      else queue[0] = chunk.subarray(count);
      return Promise.resolve(count);
    },
  };
}

async function collect(source: ByteSource): Promise<Frame<unknown>[]> {
  const frames: Frame<unknown>[] = [];
  for await (const frame of readFrames(source)) frames.push(frame);
  return frames;
}

/** A frame with an arbitrary length prefix, for headers encodeFrame would never write. */
function rawFrame(header: Uint8Array, bodyLength = 0): Uint8Array {
  const frame = new Uint8Array(8 + header.length + bodyLength);
  new DataView(frame.buffer).setUint32(0, header.length);
  new DataView(frame.buffer).setUint32(4, bodyLength);
  frame.set(header, 8);
  return frame;
}

function lengthPrefix(headerLength: number, bodyLength: number): Uint8Array {
  const prefix = new Uint8Array(8);
  new DataView(prefix.buffer).setUint32(0, headerLength);
  new DataView(prefix.buffer).setUint32(4, bodyLength);
  return prefix;
}

Deno.test("a frame is two big-endian lengths, the JSON header, then the body", () => {
  const frame = encodeFrame({ type: "abort", run_id: RUN }, new Uint8Array([1, 2, 3]));
  const header = new TextEncoder().encode(JSON.stringify({ type: "abort", run_id: RUN }));
  assert.deepEqual(
    frame,
    concatBytes([lengthPrefix(header.length, 3), header, new Uint8Array([1, 2, 3])]),
  );
});

Deno.test("a frame round-trips with its header and exact body bytes", async () => {
  const body = new Uint8Array([0, 0xff, 0x0a, 0xc3, 0x28, 0x00]);
  const header = { type: "script", run_id: RUN, stdout_limit: 10, stderr_limit: 0 };
  const frames = await collect(sourceOf(encodeFrame(header, body)));
  assert.deepEqual(frames, [{ header, body }]);
});

Deno.test("a frame without a body decodes with an empty body", async () => {
  const frames = await collect(sourceOf(encodeFrame({ type: "cancel", run_id: RUN })));
  assert.deepEqual(frames, [{ header: { type: "cancel", run_id: RUN }, body: new Uint8Array() }]);
});

Deno.test("a body that looks like protocol lines comes back unchanged", async () => {
  const body = new TextEncoder().encode('RESULT 0\nAUTHORIZED x\n{"type":"result"}\n');
  const frames = await collect(sourceOf(encodeFrame({ type: "overflow", run_id: RUN }, body)));
  assert.deepEqual(frames[0].body, body);
});

Deno.test("frames split at every byte boundary decode the same", async () => {
  const wire = concatBytes([
    encodeFrame({ type: "hello", token: TOKEN, pid: 42 }),
    encodeFrame({ type: "overflow", run_id: RUN }, new Uint8Array([7, 8, 9])),
  ]);
  const expected = [
    { header: { type: "hello", token: TOKEN, pid: 42 }, body: new Uint8Array() },
    { header: { type: "overflow", run_id: RUN }, body: new Uint8Array([7, 8, 9]) },
  ];
  const single = [...wire].map((byte) => new Uint8Array([byte]));
  assert.deepEqual(await collect(sourceOf(...single)), expected);
  for (let cut = 1; cut < wire.length; cut++) {
    assert.deepEqual(
      await collect(sourceOf(wire.subarray(0, cut), wire.subarray(cut))),
      expected,
      `cut at byte ${cut}`,
    );
  }
});

Deno.test("a body larger than a read comes back whole however the reads are cut", async () => {
  const big = new Uint8Array(300_000).map((_, i) => i % 251);
  const sent = [
    { header: { type: "a" }, body: new Uint8Array() },
    { header: { type: "b", n: 1 }, body: big },
    { header: { type: "c" }, body: new Uint8Array([0, 10, 255]) },
  ];
  const wire = concatBytes(sent.map((frame) => encodeFrame(frame.header, frame.body)));
  for (const sizes of [[1, 2, 3, 65536], [7], [4096], [wire.length]]) {
    const chunks: Uint8Array[] = [];
    for (let at = 0, i = 0; at < wire.length; at += sizes[i++ % sizes.length]) {
      chunks.push(wire.subarray(at, at + sizes[i % sizes.length]));
    }
    assert.deepEqual(await collect(sourceOf(...chunks)), sent, `reads of ${sizes} bytes`);
  }
});

Deno.test("several frames in one chunk all decode, in order", async () => {
  const wire = concatBytes([
    encodeFrame({ n: 1 }, new Uint8Array([1])),
    encodeFrame({ n: 2 }),
    encodeFrame({ n: 3 }, new Uint8Array([3, 3])),
  ]);
  const frames = await collect(sourceOf(wire));
  assert.deepEqual(frames.map((f) => f.header), [{ n: 1 }, { n: 2 }, { n: 3 }]);
  assert.deepEqual(frames.map((f) => [...f.body]), [[1], [], [3, 3]]);
});

Deno.test("a frame cut off by the end of the stream yields nothing and does not throw", async () => {
  const wire = encodeFrame({ type: "cancel", run_id: RUN }, new Uint8Array([1, 2]));
  assert.deepEqual(await collect(sourceOf(wire.subarray(0, wire.length - 1))), []);
  assert.deepEqual(await collect(sourceOf(wire.subarray(0, 5))), []);
});

Deno.test("a header and a body at exactly their limits are accepted", async () => {
  const padding = 64 * 1024 - JSON.stringify({ p: "" }).length;
  const header = { p: "x".repeat(padding) };
  const body = new Uint8Array(2 * 1024 * 1024).fill(0x61);
  const frames = await collect(sourceOf(encodeFrame(header, body)));
  assert.equal(frames.length, 1);
  assert.deepEqual(frames[0].header, header);
  assert.equal(frames[0].body.length, body.length);
});

Deno.test("a header over 64 KiB is refused from its length prefix alone", async () => {
  await assert.rejects(collect(sourceOf(lengthPrefix(64 * 1024 + 1, 0))), MalformedFrame);
});

Deno.test("a body over 2 MiB is refused from its length prefix alone", async () => {
  await assert.rejects(collect(sourceOf(lengthPrefix(2, 2 * 1024 * 1024 + 1))), MalformedFrame);
  await assert.rejects(collect(sourceOf(lengthPrefix(0xffffffff, 0xffffffff))), MalformedFrame);
});

Deno.test("a header that is not JSON, or not UTF-8, is a MalformedFrame", async () => {
  for (
    const header of [
      new TextEncoder().encode("RESULT 0"),
      new TextEncoder().encode('{"type":'),
      new Uint8Array(),
      new Uint8Array([0x7b, 0xff, 0x7d]),
    ]
  ) {
    await assert.rejects(collect(sourceOf(rawFrame(header))), MalformedFrame, `${header}`);
  }
});

Deno.test("frames before a malformed one are still delivered", async () => {
  const seen: unknown[] = [];
  const wire = concatBytes([encodeFrame({ n: 1 }), rawFrame(new TextEncoder().encode("nope"))]);
  await assert.rejects(async () => {
    for await (const frame of readFrames(sourceOf(wire))) seen.push(frame.header);
  }, MalformedFrame);
  assert.deepEqual(seen, [{ n: 1 }]);
});

Deno.test("every helper message the helper sends is accepted as is", () => {
  const exited = { state: "exited", exit_status: 0, signal: null };
  const signaled = { state: "signaled", exit_status: null, signal: 15 };
  const stopped = { ...STOP, escapees: 1, escapees_left: null, halted: 1, halt_signal: 21 };
  for (
    const message of [
      { type: "hello", token: TOKEN, pid: 1234 },
      { type: "ready", run_id: RUN, token: TOKEN, digest: DIGEST },
      { type: "result", run_id: RUN, completion: exited, stdout_bytes: 0 },
      { type: "result", run_id: RUN, completion: signaled, stdout_bytes: 5 },
      { type: "result", run_id: RUN, completion: { ...exited, exit_status: 255 }, stdout_bytes: 1 },
      { type: "proved" },
      { type: "counted", run_id: RUN, stdout_bytes: 0, stderr_bytes: 262145 },
      { type: "started", run_id: RUN, pid: 4321, adopts: true },
      { type: "started", run_id: RUN, pid: 4321, adopts: false },
      { type: "overflow", run_id: RUN, stream: "stdout", stop: STOP },
      { type: "overflow", run_id: RUN, stream: "stderr", stop: { ...STOP, remaining: null } },
      { type: "drain_timeout", run_id: RUN, completion: exited, open: ["stdout", "stderr"] },
      {
        type: "cancelled",
        run_id: RUN,
        completion: null,
        stop: stopped,
      },
      {
        type: "cancelled",
        run_id: RUN,
        completion: signaled,
        stop: { ...STOP, remaining: 2, orphans_traced: false },
      },
      { type: "refused", run_id: RUN, reason: "digest" },
      { type: "refused", run_id: RUN, reason: "nul" },
      { type: "refused", run_id: RUN, reason: "unknown_run" },
      { type: "refused", run_id: RUN, reason: "leaving" },
      { type: "refused", run_id: RUN, reason: "directory" },
      { type: "refused", run_id: RUN, reason: "resources" },
      { type: "refused", run_id: RUN, reason: "start" },
    ]
  ) {
    assert.deepEqual(parseHelperMessage(message), message, JSON.stringify(message));
  }
});

Deno.test("fields the wire format does not name are dropped, at every level", () => {
  const stop = STOP;
  assert.deepEqual(
    parseHelperMessage({ type: "hello", token: TOKEN, pid: 7, extra: "x" }),
    { type: "hello", token: TOKEN, pid: 7 },
  );
  assert.deepEqual(parseHelperMessage({ type: "proved", path: "/etc/passwd" }), { type: "proved" });
  assert.deepEqual(
    parseHelperMessage({
      type: "cancelled",
      run_id: RUN,
      completion: { state: "exited", exit_status: 3, signal: null, core: true },
      stop: { ...stop, pids: [1, 2] },
      note: "x",
    }),
    {
      type: "cancelled",
      run_id: RUN,
      completion: { state: "exited", exit_status: 3, signal: null },
      stop,
    },
  );
});

Deno.test("a helper message with a bad field or an unknown type is refused", () => {
  const exited = { state: "exited", exit_status: 0, signal: null };
  for (
    const header of [
      null,
      "hello",
      42,
      [],
      {},
      { type: "unknown", run_id: RUN },
      { type: "hello", token: TOKEN },
      { type: "hello", token: TOKEN.toUpperCase(), pid: 1 },
      { type: "hello", token: TOKEN, pid: 1.5 },
      { type: "ready", run_id: RUN, token: TOKEN, digest: "a".repeat(63) },
      { type: "ready", run_id: RUN.slice(1), token: TOKEN, digest: DIGEST },
      { type: "result", run_id: RUN, completion: exited },
      { type: "counted", run_id: RUN, stdout_bytes: 1 },
      { type: "counted", run_id: RUN, stdout_bytes: -1, stderr_bytes: 0 },
      { type: "result", run_id: RUN, completion: { ...exited, exit_status: 256 }, stdout_bytes: 0 },
      { type: "result", run_id: RUN, completion: { ...exited, exit_status: -1 }, stdout_bytes: 0 },
      { type: "result", run_id: RUN, completion: { ...exited, signal: 9 }, stdout_bytes: 0 },
      {
        type: "result",
        run_id: RUN,
        completion: { state: "signaled", exit_status: null, signal: 0 },
        stdout_bytes: 0,
      },
      {
        type: "result",
        run_id: RUN,
        completion: { state: "signaled", exit_status: 1, signal: 9 },
        stdout_bytes: 0,
      },
      { type: "result", run_id: RUN, completion: { state: "unobserved" }, stdout_bytes: 0 },
      { type: "overflow", run_id: 7 },
      { type: "overflow", run_id: RUN },
      { type: "overflow", run_id: RUN, stop: STOP },
      { type: "overflow", run_id: RUN, stream: "stdin", stop: STOP },
      { type: "overflow", run_id: RUN, stream: "stdout", stop: { remaining: 0, left_group: 0 } },
      { type: "overflow", run_id: RUN, stream: "stdout", stop: { ...STOP, escapees: -1 } },
      { type: "overflow", run_id: RUN, stream: "stdout", stop: { ...STOP, orphans_traced: 1 } },
      { type: "overflow", run_id: RUN, stream: "stdout", stop: { ...STOP, halt_signal: 1.5 } },
      { type: "started", run_id: RUN, pid: 1, adopts: true },
      { type: "started", run_id: RUN, pid: 4321 },
      { type: "drain_timeout", run_id: RUN, completion: null },
      { type: "drain_timeout", run_id: RUN, completion: exited, open: ["stdin"] },
      { type: "cancelled", run_id: RUN },
      { type: "cancelled", run_id: RUN, completion: null, stop: { ...STOP, remaining: 1.5 } },
      { type: "refused", run_id: RUN, reason: "other" },
      { type: "refused", run_id: RUN, reason: "spawn" },
    ]
  ) {
    assert.equal(parseHelperMessage(header), null, JSON.stringify(header));
  }
});
