// The helper wire without tmux: frames survive any split of the byte stream, and a frame that
// is too large or whose header is not JSON is refused.
import assert from "node:assert/strict";
import { encodeFrame, type Frame, MalformedFrame, readFrames } from "../lib/run/frames.ts";
import { concatBytes } from "../lib/util/bytes.ts";

function streamOf(bytes: Uint8Array, chunkSizes: number[]): ReadableStream<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  for (let i = 0; offset < bytes.length; i++) {
    const size = chunkSizes[i % chunkSizes.length];
    chunks.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  return ReadableStream.from(chunks);
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Frame<unknown>[]> {
  const frames: Frame<unknown>[] = [];
  for await (const frame of readFrames(stream)) frames.push(frame);
  return frames;
}

Deno.test("frames come back whole however the stream is split", async () => {
  const big = new Uint8Array(300_000).map((_, i) => i % 251);
  const sent = [
    { header: { type: "a" }, body: new Uint8Array() },
    { header: { type: "b", n: 1 }, body: big },
    { header: { type: "c" }, body: new Uint8Array([0, 10, 255]) },
  ];
  const encoded = sent.map((f) => encodeFrame(f.header, f.body));
  const wire = concatBytes(encoded);
  for (const sizes of [[1, 2, 3, 65536], [7], [4096], [wire.length]]) {
    const got = await collect(streamOf(wire, sizes));
    assert.deepEqual(got, sent, `split into chunks of ${sizes}`);
  }
});

Deno.test("a frame too large or with a header that is not JSON is refused", async () => {
  const tooLarge = new Uint8Array(8);
  new DataView(tooLarge.buffer).setUint32(4, 3 * 1024 * 1024);
  await assert.rejects(collect(streamOf(tooLarge, [8])), MalformedFrame);
  const notJson = encodeFrame({});
  notJson.set(new TextEncoder().encode("}{"), 8);
  await assert.rejects(collect(streamOf(notJson, [4])), MalformedFrame);
});
