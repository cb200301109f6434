// list_servers against real tmux servers in a private tmux directory ($TMUX_TMPDIR): two alive
// servers with their session counts, the socket a server killed with SIGKILL leaves (stale),
// and a symbolic link and a plain file that are not listed; then the person's own directory,
// where the bound server comes first and is marked.
import assert from "node:assert/strict";
import { type Lab, type Payload, waitFor, withLab } from "./harness.ts";
import { withGeneral } from "./general_session.ts";
import { runTmux, type TmuxClient } from "../lib/tmux/tmux.ts";
import { processExists } from "../lib/host/processes.ts";

/** A tmux server on the socket `path` with `sessions` sessions, each running sleep. */
async function serverAt(lab: Lab, path: string, sessions: number): Promise<TmuxClient> {
  const client: TmuxClient = { bin: lab.tmux.bin, socket: { kind: "path", path } };
  for (let i = 0; i < sessions; i++) {
    const out = await runTmux(client, ["-f", "/dev/null", "new-session", "-d", "sleep", "1000"]);
    assert.equal(out.code, 0, out.stderr);
  }
  return client;
}

/** list_servers with TMUX_TMPDIR set to `dir` (unset when undefined) for this one call. */
async function listedWith(call: (name: string) => Promise<Payload>, dir: string | undefined) {
  const before = Deno.env.get("TMUX_TMPDIR");
  if (dir === undefined) Deno.env.delete("TMUX_TMPDIR");
  else Deno.env.set("TMUX_TMPDIR", dir);
  try {
    const listed = await call("list_servers");
    assert.ok(listed.ok, JSON.stringify(listed));
    return listed.data;
  } finally {
    if (before === undefined) Deno.env.delete("TMUX_TMPDIR");
    else Deno.env.set("TMUX_TMPDIR", before);
  }
}

Deno.test("list_servers: alive servers with session counts, a stale socket, no links", () =>
  withLab(async (lab) => {
    const tmpdir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-tmpdir-" });
    const dir = `${tmpdir}/tmux-${Deno.uid()}`;
    await Deno.mkdir(dir, { mode: 0o700 });
    const alive: TmuxClient[] = [];
    try {
      alive.push(await serverAt(lab, `${dir}/two`, 2));
      alive.push(await serverAt(lab, `${dir}/one`, 1));
      const doomed = await serverAt(lab, `${dir}/killed`, 1);
      const pid = Number((await runTmux(doomed, ["display-message", "-p", "#{pid}"])).stdout);
      Deno.kill(pid, "SIGKILL");
      await waitFor("the killed server to exit", async () => !await processExists(pid));
      await Deno.symlink(`${dir}/two`, `${dir}/link`);
      await Deno.writeTextFile(`${dir}/notes`, "not a socket");
      await withGeneral(lab, {}, async ({ call }) => {
        const listed = await listedWith(call, tmpdir);
        assert.deepEqual(listed, {
          servers: [
            { socket_name: "killed", state: "stale", sessions: null, bound: false },
            { socket_name: "one", state: "alive", sessions: 1, bound: false },
            { socket_name: "two", state: "alive", sessions: 2, bound: false },
          ],
          truncated: 0,
        });
        // The person's own directory holds the lab's server, bound, listed first.
        const own = await listedWith(call, undefined);
        assert.deepEqual(own.servers[0], {
          socket_name: lab.socketName,
          state: "alive",
          sessions: 1,
          bound: true,
        });
        assert.equal(own.servers.filter((s: { bound: boolean }) => s.bound).length, 1);
      });
      // Asking changed nothing: the stale socket is still there, the servers still alive.
      assert.ok((await Deno.lstat(`${dir}/killed`)).isSocket);
      for (const client of alive) assert.equal((await runTmux(client, ["has-session"])).code, 0);
    } finally {
      for (const client of alive) await runTmux(client, ["kill-server"]).catch(() => {});
      await Deno.remove(tmpdir, { recursive: true });
    }
  }));

Deno.test("list_servers refuses a tmux directory that is a symbolic link, naming no path", () =>
  withLab(async (lab) => {
    const tmpdir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-tmpdir-" });
    try {
      await Deno.mkdir(`${tmpdir}/elsewhere`, { mode: 0o700 });
      await Deno.symlink(`${tmpdir}/elsewhere`, `${tmpdir}/tmux-${Deno.uid()}`);
      await withGeneral(lab, {}, async ({ call }) => {
        Deno.env.set("TMUX_TMPDIR", tmpdir);
        try {
          const refused = await call("list_servers");
          assert.equal(refused.error.code, "unusable_directory");
          assert.match(refused.error.message, /symbolic link/);
          assert.ok(!refused.error.message.includes(tmpdir));
        } finally {
          Deno.env.delete("TMUX_TMPDIR");
        }
      });
      // A directory that does not exist yet holds no servers.
      await Deno.remove(`${tmpdir}/tmux-${Deno.uid()}`);
      await withGeneral(lab, {}, async ({ call }) => {
        assert.deepEqual(await listedWith(call, tmpdir), { servers: [], truncated: 0 });
      });
    } finally {
      await Deno.remove(tmpdir, { recursive: true });
    }
  }));
