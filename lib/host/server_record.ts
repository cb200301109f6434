// A server's private directory outlives the server when it is killed (SIGKILL runs no cleanup),
// so each server, whatever its tools, publishes who it is — pid, start time and the backend that
// read it, and its tmux socket for `tmux-mcp enroll` to find — and the next server removes a
// directory only when its owner is provably gone.
import { PROCESS_FACTS_NAME, readIdentity } from "./processes.ts";
import { makeServerDirectory, type PrivateBase, privateBase, whyNotPrivate } from "./rendezvous.ts";
import { problemOf, TempDirectoryError, type TempPlace } from "./directory_problems.ts";

/** What a running server publishes in its private directory for in-pane enrollment. */
export type ServerRecord = {
  pid: number;
  start_time?: string;
  /** The backend that read start_time: /proc's clock ticks and ps's dates never compare. */
  process_facts?: string;
  tmux_socket: string;
};
export const SERVER_RECORD = "server.json";

/**
 * This server's private directory, made once at startup (by its owner, temp_files.ts): a new
 * 0700 directory in `base` (by default the private base the environment chooses) with the
 * record published, after the directories of servers provably gone are removed.
 */
export async function openServerDirectory(
  tmuxSocketPath: string,
  chosen?: PrivateBase,
): Promise<TempPlace> {
  const base = chosen ?? await privateBase();
  await removeAbandonedDirectories(base.path, base.serverPrefix).catch(() => {});
  const directory = await makeServerDirectory(base);
  try {
    await publishServerRecord(directory.path, tmuxSocketPath);
  } catch (error) {
    await Deno.remove(directory.path, { recursive: true }).catch(() => {});
    throw new TempDirectoryError(base, problemOf(error));
  }
  return directory;
}

/** Writes this process's record into `directory`, exclusively and private. */
export async function publishServerRecord(
  directory: string,
  tmuxSocketPath: string,
): Promise<void> {
  const record: ServerRecord = {
    pid: Deno.pid,
    start_time: (await readIdentity(Deno.pid))?.startTime,
    process_facts: PROCESS_FACTS_NAME,
    tmux_socket: tmuxSocketPath,
  };
  await Deno.writeTextFile(`${directory}/${SERVER_RECORD}`, JSON.stringify(record), {
    createNew: true,
    mode: 0o600,
  });
}

/**
 * Removes the private directories (`prefix…` in `base`) of servers that died without cleaning
 * up (a SIGKILL): only our own private ones (`base` may be a shared `/tmp`) whose record names a
 * process that is provably gone — no such pid, or a pid whose start time, read by the same
 * process-facts backend, differs from the recorded one. A directory without a record, or whose
 * start time another backend wrote, is left to its owner.
 */
export async function removeAbandonedDirectories(
  base: string,
  prefix = "server-",
): Promise<void> {
  for await (const entry of Deno.readDir(base)) {
    if (!entry.isDirectory || !entry.name.startsWith(prefix)) continue;
    const dir = `${base}/${entry.name}`;
    if (await whyNotPrivate(dir) !== null) continue;
    let record: ServerRecord;
    try {
      record = JSON.parse(await Deno.readTextFile(`${dir}/${SERVER_RECORD}`));
    } catch {
      continue;
    }
    if (!Number.isInteger(record.pid)) continue;
    const owner = await readIdentity(record.pid);
    const comparable = record.start_time !== undefined &&
      record.process_facts === PROCESS_FACTS_NAME;
    const gone = owner === null || (comparable && owner.startTime !== record.start_time);
    if (gone) await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
