// Private files on a shared machine. Everything the server leaves for a shell (setup files,
// the channel socket, the helper script) and the capture's and paste's files live in one 0700
// directory per server, made at startup, that only this user can enter; a world-writable
// parent is used only after checking that our directory in it is a real directory, owned by us,
// with no group or other bits. Setup files are created exclusively and never seen
// half-written, and removed only while they are still our inode.
import { randomHex } from "../util/ids.ts";
import { problemOf, TempDirectoryError, type TempPlace } from "../tmux/temp_files.ts";

/**
 * `$XDG_RUNTIME_DIR/tmux-mcp` (a tmpfs on most Linux desktops), else `$TMPDIR/tmux-mcp-<uid>`;
 * with neither set (MCP clients often pass neither), `/run/user/<uid>/tmux-mcp` when systemd's
 * per-user tmpfs is there and private (what XDG_RUNTIME_DIR names in a login session, so
 * `tmux-mcp enroll` in a person's shell finds the same one), else `/tmp/tmux-mcp-<uid>`. One
 * that cannot be made or is not private is refused, never passed over for another.
 */
export async function privateBase(): Promise<TempPlace> {
  const runtime = Deno.env.get("XDG_RUNTIME_DIR");
  if (runtime) {
    return await madePrivate({
      path: `${runtime}/tmux-mcp`,
      role: "under XDG_RUNTIME_DIR",
      variable: "XDG_RUNTIME_DIR",
    });
  }
  const tmp = Deno.env.get("TMPDIR");
  if (tmp) {
    return await madePrivate({
      path: `${tmp}/tmux-mcp-${Deno.uid()}`,
      role: "under TMPDIR",
      variable: "TMPDIR",
    });
  }
  const login = `/run/user/${Deno.uid()}`;
  if (await isPrivateDirectory(login)) {
    return await madePrivate({
      path: `${login}/tmux-mcp`,
      role: "under /run/user/UID, as XDG_RUNTIME_DIR and TMPDIR are unset",
      variable: "XDG_RUNTIME_DIR",
    });
  }
  return await madePrivate({
    path: `/tmp/tmux-mcp-${Deno.uid()}`,
    role: "under /tmp, as TMPDIR is unset",
    variable: "TMPDIR",
  });
}

async function isPrivateDirectory(path: string): Promise<boolean> {
  const info = await Deno.lstat(path).catch(() => null);
  return !!info?.isDirectory && info.uid === Deno.uid() && ((info.mode ?? 0) & 0o077) === 0;
}

/** The path of `privateBase()`. */
export async function privateBaseDirectory(): Promise<string> {
  return (await privateBase()).path;
}

async function madePrivate(base: TempPlace): Promise<TempPlace> {
  try {
    await Deno.mkdir(base.path, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) {
      throw new TempDirectoryError(base, problemOf(error));
    }
  }
  if (!await isPrivateDirectory(base.path)) throw new TempDirectoryError(base, "not_private");
  return base;
}

/** A new 0700 directory of this server's own inside `base`, the same role. */
export async function makeServerDirectory(base: TempPlace): Promise<TempPlace> {
  try {
    const dir = await Deno.makeTempDir({ dir: base.path, prefix: "server-" });
    await Deno.chmod(dir, 0o700);
    return { ...base, path: dir };
  } catch (error) {
    throw new TempDirectoryError(base, problemOf(error));
  }
}

/** A file we created; we keep it open so its inode cannot be reused by someone else's file. */
export type WrittenFile = { path: string; handle: Deno.FsFile };

/**
 * Creates `path` with `content`, mode 0600, failing if anything (a file, a directory, a
 * symlink, even a dangling one) is already there: write a temp file beside it, then hard-link.
 */
export async function writeExclusive(path: string, content: string): Promise<WrittenFile> {
  const slash = path.lastIndexOf("/");
  const temp = `${slash >= 0 ? path.slice(0, slash + 1) : ""}.tmux-mcp-${randomHex(8)}.tmp`;
  const handle = await Deno.open(temp, { write: true, createNew: true, mode: 0o600 });
  try {
    await Deno.chmod(temp, 0o600);
    await handle.write(new TextEncoder().encode(content));
    await Deno.link(temp, path);
  } catch (error) {
    handle.close();
    throw error;
  } finally {
    await Deno.remove(temp).catch(() => {});
  }
  return { path, handle };
}

/**
 * Removes the file only if the path still names the inode we created. Holding that inode open
 * is what makes the comparison sound: a file we no longer hold could see its inode number
 * reused by a replacement.
 */
export async function removeIfSame(file: WrittenFile): Promise<void> {
  try {
    const ours = await file.handle.stat();
    const there = await Deno.lstat(file.path);
    if (ours.nlink !== 0 && there.ino === ours.ino && there.dev === ours.dev) {
      await Deno.remove(file.path);
    }
  } catch {
    // Already gone, or replaced by someone else: not ours to remove.
  } finally {
    file.handle.close();
  }
}
