// A long-lived byte stream (a control-mode client's stdout) read through one reused buffer,
// handing on an exact copy of each read. Deno's own `readable` allocates a fresh 64 KiB buffer for
// every read and hands out a view of it, so a few hundred bytes kept 64 KiB of malloc'd memory
// alive until V8's next collection; glibc does not give that memory back, and it made most of the
// server's growth from 80 to 140 MiB over 2000 runs (bench/soak.ts; the `[heap]` mapping of
// /proc/PID/smaps). Helpers' frames are read without a stream (lib/run/frames.ts).
const READ_BYTES = 65536;
/**
 * A read that fills the buffer doubles the next one, up to this; a read that does not fill it
 * goes back to READ_BYTES with a fresh buffer: a burst of output from a busy pane takes fewer
 * reads, each a round trip through Deno's event loop.
 */
const MAX_READ_BYTES = 262144;

/** `stream`'s bytes as exact copies of each read, read through one reused buffer. */
export function exactReads(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const reader = stream.getReader({ mode: "byob" });
  let buffer: ArrayBufferLike = new ArrayBuffer(READ_BYTES);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const read = await reader.read(new Uint8Array(buffer)).catch(() => null);
      if (!read || read.done || !read.value) return controller.close();
      const size = read.value.buffer.byteLength;
      const full = read.value.length === size;
      buffer = full && size < MAX_READ_BYTES
        ? new ArrayBuffer(size * 2)
        : !full && size > READ_BYTES
        ? new ArrayBuffer(READ_BYTES)
        : read.value.buffer;
      controller.enqueue(read.value.slice());
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
