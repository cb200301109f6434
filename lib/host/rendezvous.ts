// Private files on a shared machine. Everything the server leaves for a shell (setup files,
// the channel socket, the helper script) and the capture's and paste's files live in one 0700
// directory per server, made at startup, that only this user can enter; a world-writable
// parent is used only after checking that our directory in it is a real directory, owned by us,
// with no group or other bits, and one that is not (squatted) is left alone for a fresh one.
// Setup files are created exclusively, in place, in a directory no other user can change, and
// removed only while they are still our inode.
import {
  type PrivacyProblem,
  problemOf,
  TempDirectoryError,
  type TempPlace,
} from "./directory_problems.ts";

/**
 * Where this user's servers make their directories: `path`, each as a fresh `serverPrefix…`
 * directory in it (with the role and variable of the place that chose it).
 */
export type PrivateBase = TempPlace & { serverPrefix: string };

const SERVER_PREFIX = "server-";

/**
 * `$XDG_RUNTIME_DIR/tmux-mcp` (a tmpfs on most Linux desktops), else `$TMPDIR/tmux-mcp-<uid>`;
 * with neither set (MCP clients often pass neither), `/run/user/<uid>/tmux-mcp` when systemd's
 * per-user tmpfs is there and private (what XDG_RUNTIME_DIR names in a login session, so
 * `tmux-mcp enroll` in a person's shell finds the same one), else `/tmp/tmux-mcp-<uid>`. One
 * that cannot be made is refused, never passed over for another variable's; one that someone
 * else made first (`/tmp` is everyone's) is squatted, and then the servers go beside it.
 */
export async function privateBase(): Promise<PrivateBase> {
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
  if (await whyNotPrivate(login) === null) {
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

/**
 * Why `path` is not a directory only this user can enter (lstat: a symlink is never followed),
 * or null when it is one. What `tmux-mcp enroll --directory` also asks of a server's directory.
 */
export async function whyNotPrivate(path: string): Promise<PrivacyProblem | "missing" | null> {
  const info = await Deno.lstat(path).catch(() => null);
  if (!info) return "missing";
  if (info.isSymlink) return "symlink";
  if (!info.isDirectory) return "not_directory";
  if (info.uid !== Deno.uid()) return "other_owner";
  if (((info.mode ?? 0) & 0o077) !== 0) return "too_open";
  return null;
}

/** The path of `privateBase()`. */
export async function privateBaseDirectory(): Promise<string> {
  return (await privateBase()).path;
}

/**
 * `place`, made 0700 if absent. One already there and not private (another user's, a symlink,
 * too open: anyone may create `/tmp/tmux-mcp-<uid>` first) is never used or changed: each server
 * then makes its own directory beside it with mkdtemp (a random name, 0700, created
 * exclusively), which a squatter can neither predict nor replace as long as the parent is
 * closed to others or sticky; otherwise it is refused, naming the path and why.
 */
async function madePrivate(place: TempPlace): Promise<PrivateBase> {
  try {
    await Deno.mkdir(place.path, { mode: 0o700 });
  } catch (error) {
    if (problemOf(error) === "missing") throw new TempDirectoryError(place, "no_parent");
    if (!(error instanceof Deno.errors.AlreadyExists)) {
      throw new TempDirectoryError(place, problemOf(error));
    }
  }
  const squatted = await whyNotPrivate(place.path);
  if (squatted === null) return { ...place, serverPrefix: SERVER_PREFIX };
  if (squatted === "missing") throw new TempDirectoryError(place, "missing");
  const slash = place.path.lastIndexOf("/");
  const parent = place.path.slice(0, slash) || "/";
  try {
    await closedToOthers(parent);
  } catch {
    throw new TempDirectoryError(place, squatted);
  }
  return {
    path: await Deno.realPath(parent),
    role: `${place.role}, beside ${place.path.slice(slash + 1)}, which is not private`,
    variable: place.variable,
    serverPrefix: `${place.path.slice(slash + 1)}-${SERVER_PREFIX}`,
  };
}

/** A new 0700 directory of this server's own inside `base`, the same role. */
export async function makeServerDirectory(base: PrivateBase): Promise<TempPlace> {
  try {
    const dir = await Deno.makeTempDir({ dir: base.path, prefix: base.serverPrefix });
    await Deno.chmod(dir, 0o700);
    return { path: dir, role: base.role, variable: base.variable };
  } catch (error) {
    throw new TempDirectoryError(base, problemOf(error));
  }
}

/** A file we created; we keep it open so its inode cannot be reused by someone else's file. */
export type WrittenFile = { path: string; handle: Deno.FsFile };

/**
 * A directory that is no place for a file we create by name, as another user could rename or
 * replace its entries: they own it, or group or others may write it without the sticky bit.
 */
export type OpenDirectory = { directory: string; reason: "writable_by_others" | "other_owner" };

export class OpenDirectoryError extends Error {
  constructor(readonly found: OpenDirectory) {
    super(`${found.directory}: ${found.reason}`);
  }
}

/**
 * The real path of `directory`, after checking that no other user could change entries of it
 * or of a directory above it: each must be owned by this user or root, and one that group or
 * others may write must have the sticky bit (which keeps each entry to its owner). The same
 * walk as OpenSSH's secure_path; the file is then made under the real path, so a symlink on
 * the way that someone re-points after the check changes nothing.
 */
export async function closedToOthers(directory: string): Promise<string> {
  const real = await Deno.realPath(directory);
  for (let path = real;; path = path.slice(0, path.lastIndexOf("/")) || "/") {
    const info = await Deno.lstat(path);
    const mode = info.mode ?? 0;
    if (info.uid !== Deno.uid() && info.uid !== 0) {
      throw new OpenDirectoryError({ directory: path, reason: "other_owner" });
    }
    if ((mode & 0o022) !== 0 && (mode & 0o1000) === 0) {
      throw new OpenDirectoryError({ directory: path, reason: "writable_by_others" });
    }
    if (path === "/") return real;
  }
}

/**
 * Creates `path` (under its directory's real path) with `content`, mode 0600, failing if
 * anything (a file, a directory, a symlink, even a dangling one: O_EXCL never follows one) is
 * already there. The file is made
 * in place and written through its handle, never renamed, linked or chmodded by name, in a
 * directory no other user can change (else OpenDirectoryError), so the inode we wrote is the
 * one at `path` until we remove it. The mode given to open is all it needs: umask only removes
 * bits. The content is one write: a reader sees the file empty or whole while it fits a page
 * (the kernel sets the size after copying), and larger files (the helper's) are written before
 * anything that reads them exists.
 */
export async function writeExclusive(path: string, content: string): Promise<WrittenFile> {
  const slash = path.lastIndexOf("/");
  const directory = await closedToOthers(
    slash > 0 ? path.slice(0, slash) : slash === 0 ? "/" : ".",
  );
  const real = `${directory === "/" ? "" : directory}/${path.slice(slash + 1)}`;
  const handle = await Deno.open(real, { write: true, createNew: true, mode: 0o600 });
  const file = { path: real, handle };
  try {
    const bytes = new TextEncoder().encode(content);
    for (let written = 0; written < bytes.length;) {
      written += await handle.write(bytes.subarray(written));
    }
  } catch (error) {
    await removeIfSame(file);
    throw error;
  }
  return file;
}

/**
 * Removes the file only if the path still names the inode we created. Holding that inode open
 * is what makes the comparison sound: a file we no longer hold could see its inode number
 * reused by a replacement.
 */
/**
 * `removeIfSame` at once, for a server told to stop that may be killed any moment (a client's
 * SIGKILL 20 ms after its SIGTERM): the handle stays open for `removeIfSame` to close later.
 */
export function removeIfSameNow(file: WrittenFile): void {
  try {
    const ours = file.handle.statSync();
    const there = Deno.lstatSync(file.path);
    if (ours.nlink !== 0 && there.ino === ours.ino && there.dev === ours.dev) {
      Deno.removeSync(file.path);
    }
  } catch {
    // Already gone, or replaced by someone else: not ours to remove.
  }
}

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
