// Which private directories a starting server may remove as abandoned: only those whose owner is
// provably gone. A live owner keeps its directory, also when its record's start time was read by
// the other process-facts backend (a test run with TMUX_MCP_PROCESS_FACTS=portable beside one
// without it removed a live server's files that way); a pid that no longer exists loses it.
import assert from "node:assert/strict";
import { removeAbandonedDirectories, type ServerRecord } from "../lib/host/server_record.ts";
import { PROCESS_FACTS_NAME, readIdentity } from "../lib/host/processes.ts";

async function withBase(fn: (base: string) => Promise<void>): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "tmux-mcp-abandoned-" });
  try {
    await fn(base);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

async function serverDirectory(base: string, name: string, record: ServerRecord): Promise<string> {
  const dir = `${base}/server-${name}`;
  await Deno.mkdir(dir, { mode: 0o700 });
  await Deno.writeTextFile(`${dir}/server.json`, JSON.stringify(record));
  return dir;
}

/** A pid that existed and has exited (and been reaped), so nothing holds it now. */
async function exitedPid(): Promise<number> {
  const child = new Deno.Command("true").spawn();
  await child.status;
  return child.pid;
}

Deno.test("a live owner keeps its directory, whatever backend wrote its start time", () =>
  withBase(async (base) => {
    const me = await readIdentity(Deno.pid);
    assert.ok(me);
    const other = PROCESS_FACTS_NAME === "proc" ? "portable" : "proc";
    const mine = await serverDirectory(base, "mine", {
      pid: Deno.pid,
      start_time: me.startTime,
      process_facts: PROCESS_FACTS_NAME,
      tmux_socket: "/nonexistent",
    });
    const otherBackend = await serverDirectory(base, "other", {
      pid: Deno.pid,
      start_time: "Mon Nov 30 12:00:00 2026",
      process_facts: other,
      tmux_socket: "/nonexistent",
    });
    await removeAbandonedDirectories(base);
    await Deno.lstat(mine);
    await Deno.lstat(otherBackend);
  }));

Deno.test("a directory whose owner is gone, or whose pid now names another process, is removed", () =>
  withBase(async (base) => {
    const gone = await serverDirectory(base, "gone", {
      pid: await exitedPid(),
      tmux_socket: "/nonexistent",
    });
    const reused = await serverDirectory(base, "reused", {
      pid: Deno.pid,
      start_time: "1",
      process_facts: PROCESS_FACTS_NAME,
      tmux_socket: "/nonexistent",
    });
    await removeAbandonedDirectories(base);
    await assert.rejects(Deno.lstat(gone), "the directory of an exited owner is left");
    await assert.rejects(Deno.lstat(reused), "the directory of a reused pid is left");
  }));

Deno.test("a directory that is not private is never removed, whatever its record says", () =>
  withBase(async (base) => {
    // The base may be a shared /tmp (a squatted private base): only our own 0700 ones count.
    const open = await serverDirectory(base, "open", {
      pid: await exitedPid(),
      tmux_socket: "/nonexistent",
    });
    await Deno.chmod(open, 0o755);
    await removeAbandonedDirectories(base);
    await Deno.lstat(`${open}/server.json`);
  }));
