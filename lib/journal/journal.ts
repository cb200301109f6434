// The person's journal: one JSON line per call that acted on a pane or on tmux, in a file the
// person owns ($XDG_STATE_HOME/tmux-mcp/journal.jsonl, else ~/.local/state/tmux-mcp/), so what an
// agent did in a lent pane outlives the server and can be checked against a receipt the agent
// shows (`tmux-mcp journal`, lib/cli/journal.ts). The journal must never cost a call anything:
// `record` only queues, one writer appends the queue in order, each line with one write() on an
// O_APPEND handle (so lines of several servers never interleave), and a failure (a full or
// read-only disk, EACCES) loses that line, is said once on stderr and shows in tmux_capabilities.
// A journal that cannot be written safely — its directory or file a symlink, another user's, or
// open to others — is refused for the server's life, naming the path and the reason. The file
// rotates to journal.1.jsonl at JOURNAL_ROTATE_BYTES; one previous file is kept.
import type { JournalEntry } from "./entries.ts";

export const JOURNAL_FILE = "journal.jsonl";
export const JOURNAL_ROTATED_FILE = "journal.1.jsonl";
/** The size at which the journal moves to journal.1.jsonl (replacing the one before). */
export const JOURNAL_ROTATE_BYTES = 8 * 1024 * 1024;
/** Lines queued at most; past it a line is lost (and counted) rather than held in memory. */
export const JOURNAL_MAX_QUEUED = 1024;

/**
 * The journal's directory for `env`: $XDG_STATE_HOME/tmux-mcp when it is an absolute path (the
 * XDG spec says a relative one is ignored), else $HOME/.local/state/tmux-mcp; null with neither.
 */
export function journalDirectory(env: Record<string, string | undefined>): string | null {
  const state = env.XDG_STATE_HOME;
  if (state?.startsWith("/")) return `${state.replace(/\/+$/, "")}/tmux-mcp`;
  const home = env.HOME;
  if (home?.startsWith("/")) return `${home.replace(/\/+$/, "")}/.local/state/tmux-mcp`;
  return null;
}

/** What tmux_capabilities says of the journal. */
export type JournalStatus = {
  /**
   * on: lines are written; off: --no-journal, or no state directory; refused: unsafe to write
   * (see problem), nothing is written for the server's life; failing: the last write failed
   * (see problem), later lines are tried again.
   */
  state: "on" | "off" | "refused" | "failing";
  path: string | null;
  scripts_kept: boolean;
  entries_written: number;
  entries_lost: number;
  problem: string | null;
};

/** The journal is unsafe to write: `reason` says why, for `path`. */
export class JournalRefused extends Error {
  constructor(readonly path: string, readonly reason: string) {
    super(`the journal ${path} is refused: ${reason}`);
  }
}

export type JournalOptions = {
  /** Null: the journal is off (--no-journal, or no directory to put it in). */
  directory: string | null;
  /** Why it is off, for tmux_capabilities, when `directory` is null. */
  offReason?: string;
  keepScripts: boolean;
  /** Told once, the first time something goes wrong (stderr, in the server). */
  report: (message: string) => void;
  rotateBytes?: number;
  uid?: number;
};

/** The system's error code, "EROFS", or the error's name. */
function codeOf(error: unknown): string {
  if (error instanceof Error && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return error instanceof Error ? error.name : "error";
}

/** `line` on a line of its own, after the part of one a short write left. */
function afterNewline(line: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(line.length + 1);
  bytes[0] = 0x0a;
  bytes.set(line, 1);
  return bytes;
}

export class Journal {
  readonly keepsScripts: boolean;
  readonly path: string | null;
  readonly #directory: string | null;
  readonly #report: (message: string) => void;
  readonly #rotateBytes: number;
  readonly #uid: number;
  #state: JournalStatus["state"];
  #problem: string | null;
  #reported = false;
  #written = 0;
  #lost = 0;
  #queue: Promise<JournalEntry>[] = [];
  #writer: Promise<void> | null = null;
  #file: Deno.FsFile | null = null;
  /** The last write was cut short: the next line starts on a line of its own. */
  #torn = false;

  constructor(options: JournalOptions) {
    this.#directory = options.directory;
    this.path = options.directory && `${options.directory}/${JOURNAL_FILE}`;
    this.keepsScripts = options.directory !== null && options.keepScripts;
    this.#report = options.report;
    this.#rotateBytes = options.rotateBytes ?? JOURNAL_ROTATE_BYTES;
    this.#uid = options.uid ?? Deno.uid() ?? -1;
    this.#state = options.directory ? "on" : "off";
    this.#problem = options.directory ? null : options.offReason ?? null;
  }

  /** A journal that records nothing. */
  static off(reason: string): Journal {
    return new Journal({
      directory: null,
      offReason: reason,
      keepScripts: false,
      report: () => {},
    });
  }

  /**
   * Makes the directory and opens the file now, so a refusal is said at startup; a filesystem
   * that fails (rather than refuses) is tried again at the first line. Never throws.
   */
  async open(): Promise<void> {
    if (!this.#directory) return;
    try {
      await this.#handle();
    } catch (error) {
      this.#failed(error);
    }
  }

  /** Queues `entry` (or the entry it will be) behind the ones before; returns at once. */
  record(entry: JournalEntry | Promise<JournalEntry>): void {
    if (this.#state === "off" || this.#state === "refused") return;
    if (this.#queue.length >= JOURNAL_MAX_QUEUED) {
      this.#lost++;
      this.#failed(new Error(`more than ${JOURNAL_MAX_QUEUED} lines waited to be written`));
      return;
    }
    const pending = Promise.resolve(entry);
    pending.catch(() => {});
    this.#queue.push(pending);
    this.#writer ??= this.#drain().finally(() => this.#writer = null);
  }

  /** Resolves once every line queued so far was written or lost. */
  async flush(): Promise<void> {
    while (this.#writer) await this.#writer;
  }

  /** Writes what is queued, then lets go of the file. */
  async close(): Promise<void> {
    await this.flush();
    this.#file?.close();
    this.#file = null;
  }

  status(): JournalStatus {
    return {
      state: this.#state,
      path: this.path,
      scripts_kept: this.keepsScripts,
      entries_written: this.#written,
      entries_lost: this.#lost,
      problem: this.#problem,
    };
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const next = this.#queue.shift()!;
      try {
        const line = new TextEncoder().encode(`${JSON.stringify(await next)}\n`);
        if (this.#state === "refused") {
          this.#lost++;
          continue;
        }
        await this.#append(line);
        this.#written++;
        if (this.#state === "failing") this.#state = "on";
      } catch (error) {
        this.#lost++;
        this.#failed(error);
      }
    }
  }

  /** One write of the whole line; a short write is a failure (the rest is never written). */
  async #append(line: Uint8Array): Promise<void> {
    let file = await this.#handle();
    const size = (await file.stat()).size;
    if (size > 0 && size + line.length > this.#rotateBytes) file = await this.#rotate();
    const bytes = this.#torn ? afterNewline(line) : line;
    const wrote = await file.write(bytes);
    this.#torn = wrote !== bytes.length;
    if (this.#torn) {
      // The rest is never written: a second write could land after another server's line.
      throw Object.assign(new Error(`a line was cut short after ${wrote} bytes`), {
        code: "a short write",
      });
    }
  }

  /** The open file, while the path still names it (another server may have rotated it). */
  async #handle(): Promise<Deno.FsFile> {
    const path = this.path!;
    if (this.#file) {
      const [held, named] = await Promise.all([
        this.#file.stat(),
        Deno.lstat(path).catch(() => null),
      ]);
      if (named && named.ino === held.ino && named.dev === held.dev) return this.#file;
      this.#file.close();
      this.#file = null;
    }
    await this.#checkDirectory();
    this.#file = await this.#openFile(path);
    return this.#file;
  }

  async #rotate(): Promise<Deno.FsFile> {
    this.#file?.close();
    this.#file = null;
    await Deno.rename(this.path!, `${this.#directory}/${JOURNAL_ROTATED_FILE}`);
    return await this.#handle();
  }

  /** Made 0700 when missing; refused unless a real directory of ours that only we can enter. */
  async #checkDirectory(): Promise<void> {
    const directory = this.#directory!;
    let info = await Deno.lstat(directory).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    });
    if (!info) {
      await Deno.mkdir(directory, { recursive: true, mode: 0o700 });
      info = await Deno.lstat(directory);
    }
    this.#refuseUnsafe(directory, info, "directory", 0o700);
  }

  /** Created 0600 (never through a link), or the existing file checked like the directory. */
  async #openFile(path: string): Promise<Deno.FsFile> {
    try {
      return await Deno.open(path, { append: true, createNew: true, mode: 0o600 });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
    const named = await Deno.lstat(path);
    this.#refuseUnsafe(path, named, "file", 0o600);
    const file = await Deno.open(path, { append: true });
    const held = await file.stat();
    if (held.ino !== named.ino || held.dev !== named.dev) {
      file.close();
      this.#refuse(new JournalRefused(path, "it was replaced while it was being opened"));
    }
    return file;
  }

  #refuseUnsafe(path: string, info: Deno.FileInfo, kind: "directory" | "file", mode: number) {
    const open = (info.mode ?? 0) & 0o777 & ~mode;
    const reason = info.isSymlink
      ? "it is a symlink, which could send the lines anywhere; remove it"
      : kind === "directory" && !info.isDirectory
      ? "it is not a directory"
      : kind === "file" && !info.isFile
      ? "it is not a regular file"
      : info.uid !== this.#uid
      ? `it belongs to another user (uid ${info.uid}), who could read or change it`
      : open !== 0
      ? `other users may ${kind === "file" ? "read it" : "enter it"} (mode ${
        (info.mode! & 0o777).toString(8)
      }); chmod ${mode.toString(8)} it`
      : null;
    if (reason) this.#refuse(new JournalRefused(path, reason));
  }

  #refuse(refused: JournalRefused): never {
    this.#state = "refused";
    throw refused;
  }

  #failed(error: unknown): void {
    const refused = error instanceof JournalRefused;
    const problem = refused
      ? `${error.message}; nothing is journaled until the server restarts`
      : `the journal ${this.path} could not be written (${codeOf(error)}); calls go on, ` +
        "their lines are lost until a write succeeds";
    this.#problem = problem;
    if (!refused) this.#state = "failing";
    if (this.#reported) return;
    this.#reported = true;
    this.#report(problem);
  }
}
