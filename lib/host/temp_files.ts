// The server's private directory, and the paste's files lent from it. This is the directory's
// one owner: it makes it (openServerDirectory: a fresh 0700 directory in the private base, with
// the server's record), guards it, lends its files and removes it. A paste reaches tmux through
// one, on every paste_text and run_command. Making and
// removing a file per call put two filesystem calls on the main thread each time, and on ext4 one
// unlink blocked 50–830 ms while every call in flight waited. So a few files are made once, in
// the directory (on a tmpfs where XDG_RUNTIME_DIR names one), lent to one call at a time and
// emptied when given back; they go with the directory at close. On a tmpfs, reads and writes are
// synchronous calls (a few µs, where Deno's asynchronous ones take ~70 µs in a hop to a worker
// thread); anywhere else they run off the main thread, so a stalled disk delays only the call
// that uses it. A directory that is full or read-only is a TempDirectoryError naming which one
// and what is wrong.
import { type DirectoryGuard, guardDirectory } from "./directory_guard.ts";
import { problemOf, TempDirectoryError, type TempPlace } from "./directory_problems.ts";
import { openServerDirectory } from "./server_record.ts";
import type { PrivateBase } from "./rendezvous.ts";

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
  #tmuxSocketPath: string;
  #base: PrivateBase | undefined;
  #opened: Promise<Opened> | null = null;
  #free: string[] = [];
  #made = 0;
  #closed = false;
  /** The directory's path once made, for `removeNow`, which cannot wait for `#opened`. */
  #path: string | null = null;
  /** Removes the directory when this process ends without removing it (a SIGKILL). */
  #guard: DirectoryGuard | null = null;

  /**
   * The directory of a server of the tmux socket `tmuxSocketPath` (its record names it for
   * `tmux-mcp enroll`), in `base`, else in the private base the environment chooses.
   */
  constructor(tmuxSocketPath: string, base?: PrivateBase) {
    this.#tmuxSocketPath = tmuxSocketPath;
    this.#base = base;
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
      const place = await openServerDirectory(this.#tmuxSocketPath, this.#base).catch((error) => {
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
