// The private channel every enrollment starts on: one Unix socket in the server's 0700
// directory, itself mode 0600. Three kinds of peers connect, and the first byte tells them
// apart with no handshake of its own: a shell enrolling ("E <token>"), `tmux-mcp enroll` asking
// for an invitation for its pane ("I %N"), and a helper, which speaks frames whose first byte
// is the high byte of a small length, 0.
import { type ByteSource, type Frame, readFrames } from "./frames.ts";

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
  const first = new Uint8Array(4096);
  const read = await conn.read(first);
  if (read === null) return closeQuietly(conn);
  const initial = first.subarray(0, read);
  if (initial[0] === 0x45) await peers.shell(conn, readLines(conn, initial));
  else if (initial[0] === 0x49) await peers.paneRequest(conn, readLines(conn, initial));
  else await peers.helper(conn, readFrames(conn, initial));
}

/** Lines of text (without their newlines); ends at a line over 4096 characters. */
async function* readLines(source: ByteSource, initial: Uint8Array): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(4096);
  let pending = decoder.decode(initial, { stream: true });
  while (true) {
    let newline: number;
    while ((newline = pending.indexOf("\n")) !== -1) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
    }
    if (pending.length > 4096) return;
    const read = await source.read(buffer);
    if (read === null) return;
    pending += decoder.decode(buffer.subarray(0, read), { stream: true });
  }
}

export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed by the other side or by an earlier failure.
  }
}
