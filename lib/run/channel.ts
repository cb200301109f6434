// The private channel every enrollment starts on: one Unix socket in the server's 0700
// directory, itself mode 0600. Three kinds of peers connect, and the first byte tells them
// apart with no handshake of its own: a shell enrolling ("E <token>"), `tmux-mcp enroll` asking
// for an invitation for its pane ("I %N"), and a helper, which speaks frames whose first byte
// is the high byte of a small length, 0.
import { exactReads } from "../util/exact_reads.ts";
import { type Frame, readFrames } from "./frames.ts";

/** Who handles each kind of peer; a handler that throws has its connection closed. */
export type ChannelPeers = {
  shell: (conn: Deno.UnixConn, lines: AsyncGenerator<string>) => Promise<void>;
  paneRequest: (conn: Deno.UnixConn, lines: AsyncGenerator<string>) => Promise<void>;
  helper: (conn: Deno.UnixConn, frames: AsyncGenerator<Frame<unknown>>) => Promise<void>;
};

/** Listens at `path` and hands every connection to its peer's handler until closed. */
export async function openChannel(path: string, peers: ChannelPeers): Promise<Deno.UnixListener> {
  const listener = Deno.listen({ transport: "unix", path });
  // bind() makes the socket 0777 less the umask; only this user's shells may connect. (The
  // 0700 directory already keeps others out; the socket's own mode says so too.)
  await Deno.chmod(path, 0o600);
  acceptLoop(listener, peers);
  return listener;
}

async function acceptLoop(listener: Deno.UnixListener, peers: ChannelPeers): Promise<void> {
  try {
    for await (const conn of listener) route(conn, peers).catch(() => closeQuietly(conn));
  } catch {
    // The listener was closed at shutdown.
  }
}

/** A shell speaks text lines ("E <token>"); a helper speaks frames, whose first byte is 0. */
async function route(conn: Deno.UnixConn, peers: ChannelPeers): Promise<void> {
  const reader = exactReads(conn.readable).getReader();
  const first = await reader.read();
  if (first.done) return closeQuietly(conn);
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(first.value);
    },
    async pull(controller) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done) controller.close();
      else controller.enqueue(chunk.value);
    },
    cancel: () => reader.cancel(),
  });
  if (first.value[0] === 0x45) await peers.shell(conn, readLines(rest));
  else if (first.value[0] === 0x49) await peers.paneRequest(conn, readLines(rest));
  else await peers.helper(conn, readFrames(rest));
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = pending.indexOf("\n")) !== -1) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
    }
    if (pending.length > 4096) return;
  }
}

export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed by the other side or by an earlier failure.
  }
}
