// The person's tmux servers, as their sockets in tmux's directory for them
// (`${TMUX_TMPDIR:-/tmp}/tmux-UID`, where `tmux -L NAME` puts socket NAME). A socket file
// outlives a server killed with SIGKILL, so each one is asked, read-only, how many sessions it
// has: one that answers is alive, one nobody listens on is stale. Symbolic links are never
// followed (not even the directory itself, which tmux refuses too), and only so many sockets
// are asked, the bound server's first.
import { runTmux, type SocketChoice, socketPath, type TmuxClient } from "./tmux.ts";
import { TmuxNotAnswering } from "./tmux.ts";

/** The most sockets one listing asks; the rest are counted as cut. */
export const MAX_SERVERS = 64;

/** How many sockets are asked at once: each may take the not-answering time. */
const AT_ONCE = 8;

export type ServerState = "alive" | "stale" | "not_answering" | "unknown";

export type ServerSocket = {
  socket_name: string;
  state: ServerState;
  /** Sessions of an alive server; null for any other state. */
  sessions: number | null;
  bound: boolean;
};

/** tmux's socket directory for this user, as tmux computes it. */
export function tmuxDirectory(): string {
  return `${Deno.env.get("TMUX_TMPDIR") || "/tmp"}/tmux-${Deno.uid()}`;
}

/** Why the directory cannot be listed, or null when it can (or does not exist: no servers). */
async function unusableDirectory(directory: string): Promise<string | null> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(directory);
  } catch (error) {
    return error instanceof Deno.errors.NotFound ? null : "it cannot be read";
  }
  if (info.isSymlink) return "it is a symbolic link";
  if (!info.isDirectory) return "it is not a directory";
  if (info.uid !== null && info.uid !== Deno.uid()) return "it is not yours";
  return null;
}

/** One socket's server, asked for its sessions by a spawned client that never starts one. */
async function probe(
  bin: string,
  path: string,
  signal?: AbortSignal,
): Promise<ServerState | number> {
  const client: TmuxClient = { bin, socket: { kind: "path", path } };
  try {
    const out = await runTmux(client, ["list-sessions", "-F", "#{session_id}"], signal);
    if (out.code === 0) return out.stdout.split("\n").filter((line) => line !== "").length;
    // ECONNREFUSED (nobody listens) and ENOENT both read "no server running".
    return /no server running/.test(out.stderr) ? "stale" : "unknown";
  } catch (error) {
    if (signal?.aborted) throw error;
    return error instanceof TmuxNotAnswering ? "not_answering" : "unknown";
  }
}

export type ServerListing =
  | { ok: true; servers: ServerSocket[]; truncated: number }
  | { ok: false; why: string };

/** The sockets in tmux's directory, each asked; `bound` is the server this MCP server uses. */
export async function listServers(
  bin: string,
  bound: SocketChoice,
  signal?: AbortSignal,
): Promise<ServerListing> {
  const directory = tmuxDirectory();
  const why = await unusableDirectory(directory);
  if (why !== null) return { ok: false, why };
  const names: string[] = [];
  try {
    for await (const entry of Deno.readDir(directory)) {
      if (entry.isSymlink) continue;
      const info = await Deno.lstat(`${directory}/${entry.name}`).catch(() => null);
      if (info?.isSocket) names.push(entry.name);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) return { ok: false, why: "it cannot be read" };
  }
  const boundPath = socketPath(bound);
  const isBound = (name: string) => `${directory}/${name}` === boundPath;
  names.sort((a, b) => Number(isBound(b)) - Number(isBound(a)) || (a < b ? -1 : a > b ? 1 : 0));
  const asked = names.slice(0, MAX_SERVERS);
  const servers: ServerSocket[] = [];
  for (let first = 0; first < asked.length; first += AT_ONCE) {
    const batch = asked.slice(first, first + AT_ONCE);
    const states = await Promise.all(
      batch.map((name) => probe(bin, `${directory}/${name}`, signal)),
    );
    batch.forEach((name, index) => {
      const state = states[index];
      servers.push({
        socket_name: name,
        state: typeof state === "number" ? "alive" : state,
        sessions: typeof state === "number" ? state : null,
        bound: isBound(name),
      });
    });
  }
  return { ok: true, servers, truncated: names.length - asked.length };
}
