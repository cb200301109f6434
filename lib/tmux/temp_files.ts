// The capture's and the paste's files. A capture comes back from tmux through a file (never as
// control-mode text: capture.ts says why) and a paste reaches tmux through one, on every
// run_command, wait and capture. Making and removing a file per call put two filesystem calls
// on the main thread each time, and on ext4 one unlink blocked 50–830 ms while every call in
// flight waited. So a few files are made once, in the server's private directory (on a tmpfs
// where XDG_RUNTIME_DIR names one), lent to one call at a time and emptied when given back;
// they go with the directory at close. On a tmpfs, reads and writes are synchronous calls (a
// few µs, where Deno's asynchronous ones take ~70 µs in a hop to a worker thread); anywhere
// else they run off the main thread, so a stalled disk delays only the call that uses it.
// A directory that is full or read-only is a refusal naming which directory and what to do.
import { refusal } from "../mcp/tool_result.ts";
import type { Refusal } from "./targets.ts";
import { type DirectoryGuard, guardDirectory } from "../util/directory_guard.ts";

/**
 * A directory, how a person knows it ("under TMPDIR": errors never echo a path) and the
 * variable that chooses it.
 */
export type TempPlace = {
  path: string;
  role: string;
  variable: "XDG_RUNTIME_DIR" | "TMPDIR";
};

/** Why a directory that is there is not private: it may be someone else's (squatted). */
export type PrivacyProblem = "symlink" | "not_directory" | "other_owner" | "too_open";

export type TempProblem =
  | "full"
  | "read_only"
  | "not_writable"
  | "missing"
  | "no_parent"
  | PrivacyProblem
  | "unusable";

export class TempDirectoryError extends Error {
  readonly role: string;
  readonly variable: TempPlace["variable"];
  /** The directory's path, for the person starting the server; tool errors never say it. */
  readonly path: string | undefined;
  constructor(
    place: Omit<TempPlace, "path"> & { path?: string },
    readonly problem: TempProblem,
  ) {
    super(`the private directory ${place.role}: ${problem}`);
    this.role = place.role;
    this.variable = place.variable;
    this.path = place.path;
  }
}

/** What an error of a filesystem call says about the directory it was made in. */
export function problemOf(error: unknown): TempProblem {
  if (error instanceof TempDirectoryError) return error.problem;
  const code = error instanceof Error && "code" in error ? error.code : undefined;
  if (code === "ENOSPC" || code === "EDQUOT") return "full";
  if (code === "EROFS") return "read_only";
  if (code === "EACCES" || code === "EPERM") return "not_writable";
  if (code === "ENOENT" || code === "ENOTDIR") return "missing";
  return "unusable";
}

const WHAT_IS_WRONG: Record<TempProblem, string> = {
  full: "is full",
  read_only: "is on a read-only filesystem",
  not_writable: "cannot be written by this user",
  missing: "does not exist",
  no_parent: "could not be made, as the directory it goes in does not exist",
  symlink: "is a symlink (it must be a directory this user owns, mode 0700)",
  not_directory: "is not a directory (it must be a directory this user owns, mode 0700)",
  other_owner: "belongs to another user (it must be a directory this user owns, mode 0700)",
  too_open: "is open to other users (it must be a directory this user owns, mode 0700)",
  unusable: "could not be used",
};

/** What to do about `problem`, for a directory chosen by `variable`. */
function whatToDo(problem: TempProblem, variable: TempPlace["variable"]): string {
  const restart = `restart the server with ${variable} naming`;
  switch (problem) {
    case "full":
      return `free space there, or ${restart} a directory on a filesystem with room`;
    case "not_writable":
      return `${restart} a directory this user may write`;
    case "missing":
      return `create it, or ${restart} a directory that exists`;
    case "no_parent":
      return `create that directory, or ${restart} a directory that exists (or unset it)`;
    case "symlink":
    case "not_directory":
    case "other_owner":
    case "too_open":
      return `remove it (it may be another user's), or ${restart} a directory only you can write`;
    default:
      return `${restart} a writable directory`;
  }
}

/** The refusal for a capture or paste whose file could not be made, written or read. */
export function tempRefusal(error: TempDirectoryError, purpose: string): Refusal {
  return refusal(
    "temp_dir_unusable",
    `the ${purpose} needs a file in the server's private temporary directory (${error.role}), ` +
      `which ${WHAT_IS_WRONG[error.problem]}; ${whatToDo(error.problem, error.variable)}`,
  );
}

/**
 * The startup refusal for a private directory that could not be prepared: its path (the
 * person starting the server may see it), what is wrong and what to do.
 */
export function startupRefusal(error: TempDirectoryError): string {
  return `${directoryProblem(error)}; ${whatToDo(error.problem, error.variable)}`;
}

/** Which private directory, by path and role, and what is wrong with it. */
export function directoryProblem(error: TempDirectoryError): string {
  const where = error.path ? `${error.path} (${error.role})` : `(${error.role})`;
  return `the private directory ${where} ${WHAT_IS_WRONG[error.problem]}`;
}

/** More files than this, made for a burst of calls at once, are removed when given back. */
const KEPT_FILES = 16;

/** Whether `path` lives on a filesystem in memory (Linux's mount table; false elsewhere). */
export async function inMemory(path: string): Promise<boolean> {
  let table: string;
  let real: string;
  try {
    table = await Deno.readTextFile("/proc/self/mountinfo");
    real = await Deno.realPath(path);
  } catch {
    return false;
  }
  let best = "";
  let type = "";
  for (const line of table.split("\n")) {
    const fields = line.split(" ");
    const separator = fields.indexOf("-");
    if (separator < 0 || fields.length < 5) continue;
    const mountPoint = fields[4].replace(
      /\\([0-7]{3})/g,
      (_, octal) => String.fromCharCode(parseInt(octal, 8)),
    );
    const holds = mountPoint === "/" || real === mountPoint || real.startsWith(`${mountPoint}/`);
    if (holds && mountPoint.length >= best.length) {
      best = mountPoint;
      type = fields[separator + 1] ?? "";
    }
  }
  return type === "tmpfs" || type === "ramfs";
}

type Opened = { place: TempPlace; inMemory: boolean };

const CLOSED = { role: "removed as the server closes", variable: "TMPDIR" } as const;

/**
 * The server's private directory, made on first need (the server asks at startup, and asks
 * again on a call while it could not be made), and the files lent from it.
 */
export class TempFiles {
  #make: () => Promise<TempPlace>;
  #opened: Promise<Opened> | null = null;
  #free: string[] = [];
  #made = 0;
  #closed = false;
  /** The directory's path once made, for `removeNow`, which cannot wait for `#opened`. */
  #path: string | null = null;
  /** Removes the directory when this process ends without removing it (a SIGKILL). */
  #guard: DirectoryGuard | null = null;

  constructor(make: () => Promise<TempPlace>) {
    this.#make = make;
  }

  /** The directory, made once; a failure throws TempDirectoryError and is tried again later. */
  async place(): Promise<TempPlace> {
    return (await this.#open()).place;
  }

  #open(): Promise<Opened> {
    // Once closed, nothing makes the directory again: close would not see it to remove it.
    if (this.#closed && !this.#opened) {
      return Promise.reject(new TempDirectoryError(CLOSED, "missing"));
    }
    this.#opened ??= (async () => {
      const place = await this.#make().catch((error) => {
        throw error instanceof TempDirectoryError ? error : new TempDirectoryError(
          { role: "under XDG_RUNTIME_DIR, else TMPDIR", variable: "TMPDIR" },
          problemOf(error),
        );
      });
      this.#path = place.path;
      this.#guard = guardDirectory(place.path);
      // Made while the server was told to stop: removed here, as removeNow came too early.
      if (this.#closed) this.removeNow();
      return { place, inMemory: await inMemory(place.path) };
    })();
    const opened = this.#opened;
    opened.catch(() => {
      if (this.#opened === opened) this.#opened = null;
    });
    return opened;
  }

  /** Lends an empty file of the directory to `step`, and takes it back emptied. */
  async lend<T>(step: (file: string) => Promise<T>): Promise<T> {
    const opened = await this.#open();
    const file = this.#free.pop() ?? await this.#newFile(opened);
    try {
      return await step(file);
    } finally {
      await this.#giveBack(opened, file);
    }
  }

  async #newFile(opened: Opened): Promise<string> {
    const file = `${opened.place.path}/file-${++this.#made}`;
    try {
      const handle = await Deno.open(file, { write: true, createNew: true, mode: 0o600 });
      handle.close();
    } catch (error) {
      throw new TempDirectoryError(opened.place, problemOf(error));
    }
    return file;
  }

  async #giveBack(opened: Opened, file: string): Promise<void> {
    if (this.#closed) return;
    try {
      if (this.#free.length >= KEPT_FILES) throw new Error("enough files are kept");
      if (opened.inMemory) Deno.truncateSync(file);
      else await Deno.truncate(file);
      this.#free.push(file);
    } catch {
      // Never lend a file that could not be emptied: it might still hold another call's text.
      await Deno.remove(file).catch(() => {});
    }
  }

  /** The exact bytes in `file`. */
  async read(file: string): Promise<Uint8Array> {
    const opened = await this.#open();
    try {
      return opened.inMemory ? Deno.readFileSync(file) : await Deno.readFile(file);
    } catch (error) {
      throw new TempDirectoryError(opened.place, problemOf(error));
    }
  }

  /** Replaces what `file` holds with `text`. */
  async write(file: string, text: string): Promise<void> {
    const opened = await this.#open();
    try {
      if (opened.inMemory) Deno.writeTextFileSync(file, text);
      else await Deno.writeTextFile(file, text);
    } catch (error) {
      throw new TempDirectoryError(opened.place, problemOf(error));
    }
  }

  /**
   * Why `file` cannot be written, when a tmux command that writes it failed or wrote nothing:
   * the directory's own problem, or null when a byte can be written there now.
   */
  async whyUnwritable(file: string): Promise<TempDirectoryError | null> {
    try {
      await this.write(file, "\n");
      return null;
    } catch (error) {
      return error instanceof TempDirectoryError ? error : null;
    }
  }

  /**
   * Removes the directory and everything in it at once, synchronously: a shutdown's first step,
   * since a client may SIGKILL the server 20 ms after its SIGTERM (GitHub Copilot CLI does).
   * Nothing is lent afterwards; a directory still being made is removed once it is.
   */
  removeNow(): void {
    this.#closed = true;
    if (this.#path === null) return;
    try {
      Deno.removeSync(this.#path, { recursive: true });
    } catch {
      // Gone already.
    }
    this.#guard?.release();
  }

  /** Removes the directory and everything in it; nothing is lent afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    const opened = await this.#opened?.catch(() => null);
    if (opened) await Deno.remove(opened.place.path, { recursive: true }).catch(() => {});
    this.#guard?.release();
  }
}
