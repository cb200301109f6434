// The private directory against another local user, and the enroll line against a pane whose
// XDG_RUNTIME_DIR and TMPDIR are not the server's. A squatted `$TMPDIR/tmux-mcp-<uid>` (a 0777
// directory or a symlink, made by a real second user) is left alone and the server makes its
// directory beside it, fresh and 0700, where its own enroll line finds it; where that cannot be
// done safely the refusal names the path and why. The server runs as MCP clients start it.
import assert from "node:assert/strict";
import { runDeno, typeInto, waitFor, waitForPrompt, withLab } from "./harness.ts";
import { withStdioServer } from "./stdio_server.ts";
import { AS_ROOT, runAs, secondUser } from "./second_user.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const UID = Deno.uid();

async function screenShows(lab: Parameters<typeof typeInto>[0], pattern: RegExp) {
  return await waitFor(`${pattern} on screen`, async () => {
    const screen = await lab.tmuxCmd("capture-pane", "-p", "-J", "-t", lab.pane);
    return pattern.test(screen) ? screen : null;
  });
}

/** A directory for TMPDIR, of `mode`, in a 0755 one the second user can enter. */
async function withSharedTmp(mode: number, fn: (tmp: string) => Promise<void>): Promise<void> {
  const base = await Deno.makeTempDir({ prefix: "tmux-mcp-squat-" });
  try {
    await Deno.chmod(base, 0o755);
    const tmp = `${base}/tmp`;
    await Deno.mkdir(tmp);
    await Deno.chmod(tmp, mode);
    await fn(tmp);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

/** The entries of `dir` owned by this user. */
async function oursIn(dir: string): Promise<string[]> {
  const ours: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if ((await Deno.lstat(`${dir}/${entry.name}`)).uid === UID) ours.push(entry.name);
  }
  return ours;
}

/**
 * A server with TMPDIR `tmp`, squatted at `tmux-mcp-<uid>`: its enroll line, typed in the lab's
 * pane, enrolls it; its directory is beside the squat, 0700; nothing of ours is left after.
 */
async function enrollsBesideTheSquat(tmp: string, squatted: string): Promise<void> {
  await withLab((lab) =>
    withStdioServer({
      args: ["--socket-name", lab.socketName, "--enable-tool", "tmux_run"],
      env: { TMPDIR: tmp },
    }, async ({ call }) => {
      const line: string = (await call("tmux_capabilities")).data.enroll_command;
      const named = / --directory (\S+)\)"$/.exec(line)?.[1] ?? "";
      assert.ok(named.startsWith(`${tmp}/tmux-mcp-${UID}-server-`), line);
      const info = await Deno.lstat(named);
      assert.ok(info.isDirectory && info.uid === UID && (info.mode! & 0o777) === 0o700);
      assert.deepEqual(await oursIn(squatted), [], "the server wrote into the squat");
      await waitForPrompt(lab);
      await typeInto(lab, line, true);
      await screenShows(lab, /this pane is enrolled for tmux_run/);
    })
  );
  assert.deepEqual(await oursIn(tmp), [], "the server's directory is left behind");
}

const asRoot = { ignore: !AS_ROOT, sanitizeResources: false, sanitizeOps: false };

Deno.test({
  name: "a 0777 tmux-mcp-UID made by another user is left alone: the server goes beside it",
  ...asRoot,
  fn: () =>
    withSharedTmp(0o1777, async (tmp) => {
      const squat = `${tmp}/tmux-mcp-${UID}`;
      await runAs(await secondUser(), "mkdir", "-m", "777", squat);
      await enrollsBesideTheSquat(tmp, squat);
    }),
});

Deno.test({
  name: "a tmux-mcp-UID symlink made by another user is never followed: the server goes beside it",
  ...asRoot,
  fn: () =>
    withSharedTmp(0o1777, async (tmp) => {
      const user = await secondUser();
      const theirs = `${tmp}/theirs`;
      await runAs(user, "mkdir", "-m", "777", theirs);
      await runAs(user, "ln", "-s", theirs, `${tmp}/tmux-mcp-${UID}`);
      await enrollsBesideTheSquat(tmp, theirs);
    }),
});

Deno.test({
  name: "a squat in a directory others may write without the sticky bit is refused, naming it",
  ...asRoot,
  fn: () =>
    withLab((lab) =>
      withSharedTmp(0o777, async (tmp) => {
        const squat = `${tmp}/tmux-mcp-${UID}`;
        await runAs(await secondUser(), "mkdir", "-m", "777", squat);
        const result = await runDeno(
          ["run", "-A", MAIN, "--socket-name", lab.socketName, "--enable-tool", "tmux_run"],
          { TMPDIR: tmp },
        );
        assert.equal(result.code, 1, result.stderr);
        assert.ok(
          result.stderr.includes(
            `the private directory ${squat} (under TMPDIR) belongs to another user`,
          ),
          result.stderr,
        );
        assert.match(
          result.stderr,
          /remove it \(it may be another user's\), or restart the server with TMPDIR/,
        );
      })
    ),
});

Deno.test("a missing XDG_RUNTIME_DIR is named in the refusal, with what to do", () =>
  withLab(async (lab) => {
    const missing = `${lab.dir}/no-such-runtime`;
    const result = await runDeno(
      ["run", "-A", MAIN, "--socket-name", lab.socketName, "--enable-tool", "tmux_run"],
      { XDG_RUNTIME_DIR: missing },
    );
    assert.equal(result.code, 1, result.stderr);
    assert.ok(
      result.stderr.includes(
        `the private directory ${missing}/tmux-mcp (under XDG_RUNTIME_DIR) could not be made, ` +
          "as the directory it goes in does not exist; create that directory, or restart the " +
          "server with XDG_RUNTIME_DIR naming a directory that exists (or unset it)",
      ),
      result.stderr,
    );
  }));

Deno.test("the enroll line finds its server from a pane whose XDG_RUNTIME_DIR and TMPDIR differ", () =>
  withLab(async (lab) => {
    const serverTmp = await Deno.makeTempDir({ prefix: "tmux-mcp-server-tmp-" });
    try {
      await withStdioServer({
        args: ["--socket-name", lab.socketName, "--enable-tool", "tmux_run"],
        env: { TMPDIR: serverTmp },
      }, async ({ call }) => {
        const line: string = (await call("tmux_capabilities")).data.enroll_command;
        const elsewhere = `${lab.dir}/elsewhere`;
        await Deno.mkdir(elsewhere, { mode: 0o700 });
        await waitForPrompt(lab);
        await typeInto(lab, `export XDG_RUNTIME_DIR=${elsewhere} TMPDIR=${elsewhere}`, true);
        await waitForPrompt(lab);
        // Without the directory, the pane looks in its own place, and says which.
        await typeInto(lab, line.replace(/ --directory \S+\)"$/, ')"'), true);
        await screenShows(
          lab,
          new RegExp(
            `is bound to this tmux server as pid \\d+ \\(searched ${elsewhere}/tmux-mcp/server-\\*\\)`,
          ),
        );
        await waitForPrompt(lab);
        await typeInto(lab, line, true);
        await screenShows(lab, /this pane is enrolled for tmux_run/);
      });
    } finally {
      await Deno.remove(serverTmp, { recursive: true });
    }
  }));
