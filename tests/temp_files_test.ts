// The paste's files live in the server's private directory under TMPDIR (the
// server runs as MCP clients start it: its own process, no XDG_RUNTIME_DIR). A real tmpfs,
// filled up or mounted read-only, is that TMPDIR: each tool that needs a file there answers a
// refusal naming the directory by role and saying what to do, never an empty success, never
// `cancelled`, never a JSON-RPC error. Looks and waits need no file and keep working. Mounting needs root; elsewhere these tests are skipped. A
// directory that could not be made is made on a later call, and never once the server closed.
import assert from "node:assert/strict";
import { clientEnvironment, type Lab, waitFor, withLab } from "./harness.ts";
import { Client, StdioClientTransport } from "./test_deps.ts";
import { type StdioSession, withStdioServer } from "./stdio_server.ts";
import { TempFiles } from "../lib/host/temp_files.ts";
import { TempDirectoryError } from "../lib/host/directory_problems.ts";

async function canMount(): Promise<boolean> {
  if (Deno.build.os !== "linux" || Deno.uid() !== 0) return false;
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-mount-probe-" });
  try {
    const mounted = await sh(`mount -t tmpfs -o size=64k tmpfs '${dir}'`);
    if (mounted) await sh(`umount '${dir}'`);
    return mounted;
  } finally {
    await Deno.remove(dir);
  }
}

async function sh(script: string): Promise<boolean> {
  const out = await new Deno.Command("sh", { args: ["-c", script], stderr: "null" }).output();
  return out.success;
}

const MOUNTABLE = await canMount();

/** A fresh tmpfs of `size` mounted on a new directory for `fn`, unmounted and removed after. */
async function withTmpfs(size: string, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tmux-mcp-test-tmpfs-" });
  try {
    assert.ok(await sh(`mount -t tmpfs -o size=${size},mode=0777 tmpfs '${dir}'`), "mount");
    try {
      await fn(dir);
    } finally {
      assert.ok(await sh(`umount '${dir}'`), "umount");
    }
  } finally {
    await Deno.remove(dir);
  }
}

/** Writes zeros into `dir` until its filesystem has no room left. */
async function fill(dir: string): Promise<void> {
  await sh(`dd if=/dev/zero of='${dir}/fill' bs=4096 2>/dev/null`);
  assert.equal(await sh(`printf x > '${dir}/probe'`), false, "the tmpfs is full");
}

async function showText(lab: Lab, text: string): Promise<void> {
  await lab.tmuxCmd("send-keys", "-t", lab.pane, `echo ${text}`, "Enter");
  await waitFor(
    "the pane to show the text",
    async () => (await lab.tmuxCmd("capture-pane", "-p", "-t", lab.pane)).includes(`\n${text}`),
  );
}

function withServerIn(
  lab: Lab,
  tmpdir: string,
  fn: (session: StdioSession) => Promise<void>,
): Promise<void> {
  return withStdioServer({
    env: { TMPDIR: tmpdir, LIBTMUX_SAFETY: "mutating" },
    args: ["--socket-name", lab.socketName],
  }, fn);
}

/** The refusal every tool that needs a file gives: by role, what is wrong, what to do. */
function assertNamesDirectory(payload: unknown, dir: string, wrong: RegExp, todo: RegExp) {
  const text = JSON.stringify(payload);
  assert.ok(
    typeof payload === "object" && payload !== null && "ok" in payload && !payload.ok,
    text,
  );
  const { error } = payload as unknown as { error: { code: string; message: string } };
  assert.equal(error.code, "temp_dir_unusable", text);
  assert.match(error.message, /the server's private temporary directory \(under TMPDIR\)/);
  assert.match(error.message, wrong);
  assert.match(error.message, todo);
  assert.ok(!error.message.includes(dir), "the message does not echo the path");
}

/** Every tool that needs a file: a paste and a command. */
async function eachFileTool(call: StdioSession["call"], lab: Lab) {
  return {
    paste_text: await call("paste_text", { pane_id: lab.pane, text: "pasted" }),
    run_command: await call("run_command", { pane_id: lab.pane, command: "true" }),
  };
}

/**
 * A look and a wait need no file, on every tmux: the control connection answers a look, or a
 * spawned client prints it.
 */
async function assertLooksNeedNoFile(call: StdioSession["call"], lab: Lab, shown: string) {
  const look = await call("capture_since", { pane_id: lab.pane });
  assert.ok(look.ok, JSON.stringify(look));
  assert.match(look.data.text, new RegExp(shown));
  const wait = await call("wait_for_text", {
    pane_id: lab.pane,
    patterns: ["never shown"],
    timeout: 1,
  });
  assert.ok(wait.ok, JSON.stringify(wait));
  assert.equal(wait.data.outcome, "timeout");
}

Deno.test({
  name: "a full TMPDIR: every tool that needs a file says the directory is full, then recovers",
  ignore: !MOUNTABLE,
  fn: () =>
    withLab((lab) =>
      withTmpfs("256k", (dir) =>
        withServerIn(lab, dir, async ({ call }) => {
          await showText(lab, "visible-before-full");
          const before = await call("capture_since", { pane_id: lab.pane });
          assert.ok(before.ok, JSON.stringify(before));
          await fill(dir);
          await assertLooksNeedNoFile(call, lab, "visible-before-full");
          for (const [tool, payload] of Object.entries(await eachFileTool(call, lab))) {
            assert.ok(!payload.ok, `${tool}: ${JSON.stringify(payload)}`);
            assertNamesDirectory(payload, dir, /which is full/, /free space there/);
          }
          assert.equal(await lab.tmuxCmd("list-buffers"), "", "no buffer is left behind");
          // What the message says to do works: with room again, the same look succeeds.
          await Deno.remove(`${dir}/fill`);
          const after = await call("capture_since", { pane_id: lab.pane });
          assert.ok(after.ok, JSON.stringify(after));
          assert.match(after.data.text, /visible-before-full/);
        }))
    ),
});

Deno.test({
  name: "a read-only TMPDIR from the start: every tool that needs a file says so, none cancels",
  ignore: !MOUNTABLE,
  fn: () =>
    withLab((lab) =>
      withTmpfs("256k", async (dir) => {
        assert.ok(await sh(`mount -o remount,ro '${dir}'`), "remount read-only");
        await withServerIn(lab, dir, async ({ call }) => {
          await showText(lab, "visible-read-only");
          const listed = await call("list_panes", {});
          assert.ok(listed.ok, "tools that need no file still work");
          await assertLooksNeedNoFile(call, lab, "visible-read-only");
          for (const [tool, payload] of Object.entries(await eachFileTool(call, lab))) {
            assert.ok(!payload.ok, `${tool}: ${JSON.stringify(payload)}`);
            assertNamesDirectory(
              payload,
              dir,
              /which is on a read-only filesystem/,
              /restart the server with TMPDIR naming a writable directory/,
            );
          }
        });
      })
    ),
});

Deno.test({
  name: "a TMPDIR turned read-only while the server runs: pastes say so, looks work, none cancels",
  ignore: !MOUNTABLE,
  fn: () =>
    withLab((lab) =>
      withTmpfs("256k", (dir) =>
        withServerIn(lab, dir, async ({ call }) => {
          await showText(lab, "visible-then-read-only");
          // Files made and lent before the filesystem turns read-only.
          assert.ok((await call("capture_since", { pane_id: lab.pane })).ok);
          assert.ok((await call("paste_text", { pane_id: lab.pane, text: "x" })).ok);
          assert.ok(await sh(`mount -o remount,ro '${dir}'`), "remount read-only");
          await assertLooksNeedNoFile(call, lab, "visible-then-read-only");
          for (const [tool, payload] of Object.entries(await eachFileTool(call, lab))) {
            assert.ok(!payload.ok, `${tool}: ${JSON.stringify(payload)}`);
            assertNamesDirectory(
              payload,
              dir,
              /which is on a read-only filesystem/,
              /restart the server with TMPDIR naming a writable directory/,
            );
          }
          assert.ok(await sh(`mount -o remount,rw '${dir}'`), "remount writable");
        }))
    ),
});

Deno.test({
  name: "the server's private directory is made once, holds the lent files, and goes at close",
  ignore: !MOUNTABLE,
  fn: () =>
    withLab((lab) =>
      withTmpfs("1m", async (dir) => {
        const base = `${dir}/tmux-mcp-${Deno.uid()}`;
        await withServerIn(lab, dir, async ({ call }) => {
          const servers = [...Deno.readDirSync(base)].map((entry) => entry.name);
          assert.equal(servers.length, 1, "one directory for the server, made at startup");
          const server = `${base}/${servers[0]}`;
          assert.equal(Deno.statSync(server).mode! & 0o777, 0o700);
          for (let i = 0; i < 5; i++) {
            assert.ok((await call("paste_text", { pane_id: lab.pane, text: "x" })).ok);
          }
          const files = [...Deno.readDirSync(server)].map((entry) => entry.name).sort();
          assert.deepEqual(files, ["file-1", "server.json"], "one file, lent again each time");
          assert.equal(Deno.statSync(`${server}/file-1`).size, 0, "emptied when given back");
        });
        await waitFor("the server's directory to go", () => {
          return Promise.resolve([...Deno.readDirSync(base)].length === 0);
        });
      })
    ),
});

/** Whether this process may give a child its own mount namespace (root, and unshare allowed). */
async function canUnshareMounts(): Promise<boolean> {
  return MOUNTABLE && await sh("unshare --mount --propagation private true");
}

Deno.test({
  name: "with neither XDG_RUNTIME_DIR nor TMPDIR, the files are on the per-user tmpfs /run/user",
  ignore: !await canUnshareMounts(),
  fn: () =>
    withLab(async (lab) => {
      // The server in its own mount namespace, where systemd's per-user tmpfs exists (a tmpfs
      // over /run/user with a private /run/user/UID), started as MCP clients start it.
      const uid = Deno.uid();
      const main = new URL("../main.ts", import.meta.url).pathname;
      const transport = new StdioClientTransport({
        command: "unshare",
        args: [
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          `mount -t tmpfs -o mode=0755 tmpfs /run/user && mkdir -m 0700 /run/user/${uid} && ` +
          `exec "$SERVER_DENO" run --allow-all --quiet "$SERVER_MAIN" --socket-name "$0"`,
          lab.socketName,
        ],
        // Deno's Node layer rewrites an argument that names Deno itself: pass it by variable.
        env: { ...clientEnvironment(), SERVER_DENO: Deno.execPath(), SERVER_MAIN: main },
        stderr: "pipe",
      });
      let stderr = "";
      transport.stderr?.on(
        "data",
        (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk),
      );
      const client = new Client({ name: "run-user-test", version: "1" });
      await client.connect(transport).catch((error: Error) => {
        throw new Error(`the server did not start: ${error.message}; it said: ${stderr}`);
      });
      try {
        const result = await client.callTool({
          name: "paste_text",
          arguments: { pane_id: lab.pane, text: "x" },
        });
        assert.ok(!result.isError, JSON.stringify(result));
        // The server's /run/user, seen through its own root in /proc.
        const base = `/proc/${transport.pid}/root/run/user/${uid}/tmux-mcp`;
        const servers = [...Deno.readDirSync(base)].map((entry) => entry.name);
        assert.equal(servers.length, 1, "one directory for the server");
        const record = JSON.parse(Deno.readTextFileSync(`${base}/${servers[0]}/server.json`));
        assert.equal(record.pid, transport.pid);
        assert.ok(Deno.statSync(`${base}/${servers[0]}/file-1`).isFile, "the paste's file");
      } finally {
        await client.close();
      }
    }),
});

Deno.test("a directory that cannot be made is tried again on the next call, and never after close", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "tmux-mcp-test-retry-" });
  const base = {
    path: `${tmp}/base`,
    role: "under TMPDIR",
    variable: "TMPDIR",
    serverPrefix: "server-",
  } as const;
  try {
    const files = new TempFiles("/tmux-mcp-test-no-socket", base);
    for (let i = 1; i <= 2; i++) {
      const error = await files.lend(() => Promise.resolve()).catch((error) => error);
      assert.ok(error instanceof TempDirectoryError);
      assert.equal(error.problem, "missing");
    }
    await Deno.mkdir(base.path, { mode: 0o700 });
    await files.lend((file) => files.write(file, "made at last"));
    assert.equal([...Deno.readDirSync(base.path)].length, 1, "the directory was made");
    await files.close();
    assert.deepEqual([...Deno.readDirSync(base.path)], [], "close removed it");
    const closed = new TempFiles("/tmux-mcp-test-no-socket", base);
    await closed.close();
    await assert.rejects(closed.place(), TempDirectoryError);
    assert.deepEqual([...Deno.readDirSync(base.path)], [], "nothing is made after close");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
