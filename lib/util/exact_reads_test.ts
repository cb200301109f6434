// exactReads hands on every byte once, in order, and each piece owns exactly its bytes: no view
// into a larger read buffer that would keep that buffer alive, and no piece that changes when the
// next read reuses the buffer.
import assert from "node:assert/strict";
import { exactReads } from "./exact_reads.ts";

/** A byte stream that answers each read with the next of `pieces`, as a pipe would. */
function byteStream(pieces: Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest;
      const piece = pieces[next++];
      if (!piece) {
        controller.close();
        request?.respond(0);
        return;
      }
      if (!request?.view) throw new Error("exactReads must read with its own buffer");
      new Uint8Array(request.view.buffer, request.view.byteOffset).set(piece);
      request.respond(piece.length);
    },
  });
}

Deno.test("exactReads passes on each read as an exact copy that owns its bytes", async () => {
  const pieces = [new Uint8Array([1, 2, 3]), new Uint8Array(70000).fill(7), new Uint8Array([9])];
  const read: Uint8Array[] = [];
  for await (const piece of exactReads(byteStream(pieces.map((p) => p.slice(0, 65536))))) {
    read.push(piece);
  }
  assert.deepEqual(read.map((piece) => [...piece.slice(0, 4)]), [[1, 2, 3], [7, 7, 7, 7], [9]]);
  assert.deepEqual(read.map((piece) => piece.length), [3, 65536, 1]);
  assert.deepEqual(read.map((piece) => piece.buffer.byteLength), [3, 65536, 1]);
});

Deno.test("exactReads ends the stream when the source fails", async () => {
  const failing = new ReadableStream({
    type: "bytes",
    pull() {
      throw new Error("reset");
    },
  });
  const read: Uint8Array[] = [];
  for await (const piece of exactReads(failing)) read.push(piece);
  assert.deepEqual(read, []);
});

Deno.test("a read that fills the buffer doubles the next, up to 256 KiB; a short one goes back", async () => {
  const offered: number[] = [];
  let left = 1_000_000;
  const source = new ReadableStream({
    type: "bytes",
    pull(controller) {
      const request = controller.byobRequest!;
      const room = request.view!.byteLength;
      offered.push(room);
      // A flood that always fills the buffer, then one short read, then the end.
      const give = left > 600_000 ? room : left > 0 ? 100 : 0;
      left -= give === room ? room : left;
      if (give === 0) {
        controller.close();
        request.respond(0);
      } else request.respond(give);
    },
  });
  for await (const _ of exactReads(source)) { /* drain */ }
  assert.deepEqual(offered.slice(0, 5), [65536, 131072, 262144, 262144, 65536]);
});
