// Enrollment: the consent of a person, checked by the kernel. The server invites a pane with
// a setup file; the shell that sources it connects to a private channel, and is accepted only
// if /proc shows that the pane's root process holds the invitation's proof file open and that
// the helper it started is its own child. Each accepted shell owns one channel (lines, from
// zsh) and one helper link (frames), and both are discarded together when either ends.
import {
  encodeFrame,
  type HelperMessage,
  MalformedFrame,
  parseHelperMessage,
  readFrames,
  type ServerMessage,
} from "./frames.ts";
import { exactReads } from "../exact_reads.ts";
import { randomHex } from "../ids.ts";
import {
  holdsFileOpen,
  isSameProcess,
  PROCESS_FACTS_NAME,
  type ProcessIdentity,
  readIdentity,
} from "./procfs.ts";
import { removeIfSame, shellQuote, writeExclusive, type WrittenFile } from "./rendezvous.ts";
import { runTmux, type TmuxClient } from "../tmux/tmux.ts";

export const MAX_ENROLLMENTS = 8;
const HELPER_HELLO_TIMEOUT_MS = 15_000;

/** Which end went away: the shell's line channel, or the helper's frame link. */
export type Departure = "shell" | "helper";

export type RunEvent =
  | { kind: "busy" }
  | { kind: "ready"; token: string; digest: string; helperPid: number }
  | { kind: "helper"; message: HelperMessage; body: Uint8Array }
  | { kind: "gone"; cause: Departure };

/** The one run a shell may have in flight, and the events that reach it. */
export type RunSlot = { runId: string; events: EventQueue<RunEvent> };

/** How long shutdown waits for in-flight runs to stop and answer (spec: 2 s in all). */
const SHUTDOWN_GRACE_MS = 2000;

export type EnrolledShell = {
  paneId: string;
  identity: ProcessIdentity;
  /** The tmux server process that owned the pane at enrollment. */
  tmuxServer: ProcessIdentity | null;
  processGeneration: string;
  enrollmentGeneration: string;
  helperPid: number;
  run: RunSlot | null;
  sendLine: (line: string) => Promise<void>;
  sendFrame: (message: ServerMessage, body?: Uint8Array) => Promise<void>;
  /**
   * Ends the enrollment. With a run in flight the run is told (a "gone" event) and keeps the
   * helper link so it can stop the script; the run's retire step calls `release`.
   */
  discard: (cause?: Departure) => void;
  /** Closes both connections once no run needs them (or at once, `force`d at shutdown). */
  release: (force?: boolean) => void;
};

type Invitation = {
  token: string;
  paneId: string;
  setupFile: WrittenFile;
  proofPath: string;
  timer: ReturnType<typeof setTimeout>;
};

type HelperHello = {
  pid: number;
  parentPid: number;
  conn: Deno.UnixConn;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  frames: AsyncGenerator<unknown>;
};

/** How long a helper has to open the file its challenge names. */
const HELPER_PROOF_TIMEOUT_MS = 5000;

export class EventQueue<T> {
  #items: T[] = [];
  #waiter: ((item: T) => void) | null = null;

  push(item: T): void {
    if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter(item);
    } else this.#items.push(item);
  }

  /** The next event, or the signal's reason thrown when it aborts first. */
  next(signal: AbortSignal): Promise<T> {
    if (this.#items.length) return Promise.resolve(this.#items.shift()!);
    signal.throwIfAborted();
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.#waiter = null;
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiter = (item) => {
        signal.removeEventListener("abort", onAbort);
        resolve(item);
      };
    });
  }
}

export type EnrollmentOptions = {
  directory: string;
  tmux: TmuxClient;
  tmuxSupported: boolean;
  helperCommand: string[];
  helperScript: string;
  lifetimeSeconds: number;
  /** The tmux socket this server is bound to, published for `tmux-mcp enroll` to find it. */
  tmuxSocketPath: string;
};

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
 * Removes the private directories of servers that died without cleaning up (a SIGKILL): only
 * those whose record names a process that is provably gone — no such pid, or a pid whose start
 * time, read by the same process-facts backend, differs from the recorded one. A directory
 * without a record, or whose start time another backend wrote, is left to its owner.
 */
export async function removeAbandonedDirectories(base: string): Promise<void> {
  for await (const entry of Deno.readDir(base)) {
    if (!entry.isDirectory || !entry.name.startsWith("server-")) continue;
    const dir = `${base}/${entry.name}`;
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

export class Enrollments {
  readonly shells = new Map<string, EnrolledShell>();
  readonly channelPath: string;
  #invitations = new Map<string, Invitation>();
  /** Helpers that said hello, by invitation token, until their shell's check claims them. */
  #hellos = new Map<string, HelperHello[]>();
  #helloArrived = new EventTarget();
  #listener: Deno.UnixListener | null = null;
  #helperScriptFile: WrittenFile | null = null;
  #options: EnrollmentOptions;
  #closing = new AbortController();
  #runs = new Set<Promise<unknown>>();

  /** Aborts (with no reason a caller could mistake for a deadline) when shutdown begins. */
  get closing(): AbortSignal {
    return this.#closing.signal;
  }

  /** Shutdown waits for `run` to settle (its group stopped, its call answered). */
  track<T>(run: Promise<T>): Promise<T> {
    this.#runs.add(run);
    run.finally(() => this.#runs.delete(run)).catch(() => {});
    return run;
  }

  constructor(options: EnrollmentOptions) {
    this.#options = options;
    this.channelPath = `${options.directory}/channel`;
  }

  async open(): Promise<void> {
    this.#helperScriptFile = await writeExclusive(
      `${this.#options.directory}/helper.sh`,
      this.#options.helperScript,
    );
    this.#listener = Deno.listen({ transport: "unix", path: this.channelPath });
    // bind() makes the socket 0777 less the umask; only this user's shells may connect. (The
    // 0700 directory already keeps others out; the socket's own mode says so too.)
    await Deno.chmod(this.channelPath, 0o600);
    this.#acceptLoop(this.#listener);
    const record: ServerRecord = {
      pid: Deno.pid,
      start_time: (await readIdentity(Deno.pid))?.startTime,
      process_facts: PROCESS_FACTS_NAME,
      tmux_socket: this.#options.tmuxSocketPath,
    };
    await Deno.writeTextFile(
      `${this.#options.directory}/${SERVER_RECORD}`,
      JSON.stringify(record),
      { createNew: true, mode: 0o600 },
    );
  }

  /** Writes the one-line setup file a person sources in pane `paneId`. */
  async invite(paneId: string, setupPath: string): Promise<void> {
    const token = randomHex();
    const proofPath = `${this.#options.directory}/proof-${randomHex(8)}`;
    await Deno.writeTextFile(proofPath, "", { mode: 0o600, createNew: true });
    const words = [
      this.#helperScriptFile!.path,
      this.channelPath,
      token,
      proofPath,
      ...this.#options.helperCommand,
    ];
    let setupFile: WrittenFile;
    try {
      setupFile = await writeExclusive(setupPath, `source ${words.map(shellQuote).join(" ")}\n`);
    } catch (error) {
      await Deno.remove(proofPath).catch(() => {});
      throw error;
    }
    const timer = setTimeout(
      () => this.#withdraw(token),
      this.#options.lifetimeSeconds * 1000,
    );
    this.#invitations.set(token, { token, paneId, setupFile, proofPath, timer });
  }

  /**
   * The enrolled shells that still exist. Commands started from an enrolled shell inherit its
   * channel, so a background job can keep the channel open after the shell exited; /proc says
   * whether the shell itself is still there.
   */
  async liveShells(): Promise<EnrolledShell[]> {
    for (const shell of [...this.shells.values()]) {
      if (!await isSameProcess(shell.identity)) shell.discard();
    }
    return [...this.shells.values()];
  }

  pendingInvitations(): string[] {
    return [...this.#invitations.values()].map((invitation) => invitation.paneId);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    if (this.#runs.size) {
      const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS));
      await Promise.race([Promise.allSettled([...this.#runs]), grace]);
    }
    for (const token of [...this.#invitations.keys()]) await this.#withdraw(token);
    for (const shell of [...this.shells.values()]) {
      shell.discard();
      shell.release(true);
    }
    for (const hellos of this.#hellos.values()) hellos.forEach((hello) => closeQuietly(hello.conn));
    this.#hellos.clear();
    this.#listener?.close();
    this.#listener = null;
    if (this.#helperScriptFile) await removeIfSame(this.#helperScriptFile);
    await Deno.remove(this.channelPath).catch(() => {});
  }

  async #withdraw(token: string): Promise<void> {
    const invitation = this.#invitations.get(token);
    if (!invitation) return;
    this.#invitations.delete(token);
    clearTimeout(invitation.timer);
    for (const stray of this.#hellos.get(token) ?? []) closeQuietly(stray.conn);
    this.#hellos.delete(token);
    await removeIfSame(invitation.setupFile);
    await Deno.remove(invitation.proofPath).catch(() => {});
  }

  async #acceptLoop(listener: Deno.UnixListener): Promise<void> {
    try {
      for await (const conn of listener) this.#route(conn).catch(() => closeQuietly(conn));
    } catch {
      // The listener was closed at shutdown.
    }
  }

  /** A shell speaks text lines ("E <token>"); a helper speaks frames, whose first byte is 0. */
  async #route(conn: Deno.UnixConn): Promise<void> {
    const reader = exactReads(conn.readable).getReader();
    const first = await reader.read();
    if (first.done) return closeQuietly(conn);
    const rest = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(first.value);
      },
      async pull(controller) {
        const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
        if (chunk.done) controller.close();
        else controller.enqueue(chunk.value);
      },
      cancel: () => reader.cancel(),
    });
    if (first.value[0] === 0x45) await this.#enrollShell(conn, readLines(rest));
    else if (first.value[0] === 0x49) await this.#inviteFromPane(conn, readLines(rest));
    else await this.#greetHelper(conn, readFrames(rest));
  }

  /**
   * A helper says which pid it is; the kernel has to agree. The server names a fresh file on
   * this connection only, the helper opens it, and /proc must show that very pid holding it
   * open. A same-user process that read the token (or claims the real helper's pid) cannot
   * make another process open a file, so it cannot stand in for the helper.
   */
  async #greetHelper(conn: Deno.UnixConn, frames: AsyncGenerator<unknown>): Promise<void> {
    const first = await frames.next();
    const hello = first.done
      ? null
      : parseHelperMessage((first.value as { header: unknown }).header);
    if (!hello || hello.type !== "hello" || !this.#invitations.has(hello.token)) {
      return closeQuietly(conn);
    }
    const writer = conn.writable.getWriter();
    const proofPath = `${this.#options.directory}/proof-${randomHex(8)}`;
    let identity: ProcessIdentity | null = null;
    try {
      await Deno.writeTextFile(proofPath, "", { mode: 0o600, createNew: true });
      await writer.write(encodeFrame({ type: "prove", path: proofPath }));
      const timeout = new Promise<null>((resolve) =>
        setTimeout(() => resolve(null), HELPER_PROOF_TIMEOUT_MS)
      );
      const answer = await Promise.race([frames.next(), timeout]);
      const proved = answer && !answer.done &&
        parseHelperMessage((answer.value as { header: unknown }).header)?.type === "proved";
      if (proved && await holdsFileOpen(hello.pid, proofPath)) {
        identity = await readIdentity(hello.pid);
      }
    } catch {
      identity = null;
    } finally {
      await Deno.remove(proofPath).catch(() => {});
    }
    if (!identity || !this.#invitations.has(hello.token)) return closeQuietly(conn);
    const arrived = { pid: hello.pid, parentPid: identity.parentPid, conn, writer, frames };
    this.#hellos.set(hello.token, [...this.#hellos.get(hello.token) ?? [], arrived]);
    this.#helloArrived.dispatchEvent(new Event(hello.token));
  }

  /**
   * The helper started by shell `parentPid` for this invitation. A helper left over from a
   * refused attempt (a nested shell, say) has another parent and is never taken for it.
   */
  async #claimHelper(token: string, parentPid: number): Promise<HelperHello | null> {
    const take = () => {
      const hellos = this.#hellos.get(token) ?? [];
      const mine = hellos.find((hello) => hello.parentPid === parentPid);
      if (mine) this.#hellos.set(token, hellos.filter((hello) => hello !== mine));
      return mine ?? null;
    };
    const found = take();
    if (found) return found;
    const arrived = Promise.withResolvers<HelperHello | null>();
    const onHello = () => {
      const mine = take();
      if (mine) arrived.resolve(mine);
    };
    this.#helloArrived.addEventListener(token, onHello);
    const timer = setTimeout(() => arrived.resolve(null), HELPER_HELLO_TIMEOUT_MS);
    try {
      return await arrived.promise;
    } finally {
      clearTimeout(timer);
      this.#helloArrived.removeEventListener(token, onHello);
    }
  }

  /**
   * `tmux-mcp enroll`, typed in a pane, asks for an invitation for that pane ("I %N"). The
   * answer is only a setup file: the pane is enrolled when its own root shell sources it, with
   * every check of a setup file written at startup.
   */
  async #inviteFromPane(conn: Deno.UnixConn, lines: AsyncGenerator<string>): Promise<void> {
    const writer = conn.writable.getWriter();
    const reply = async (line: string) => {
      await writer.write(new TextEncoder().encode(line + "\n")).catch(() => {});
      closeQuietly(conn);
    };
    const first = await lines.next();
    const paneId = first.done ? null : /^I (%\d+)$/.exec(first.value)?.[1];
    if (!paneId) return reply("NO bad-request");
    if (!this.#options.tmuxSupported) return reply("NO tmux-too-old");
    if (this.shells.has(paneId)) return reply("NO already-enrolled");
    if (this.#invitations.size >= MAX_ENROLLMENTS) return reply("NO busy");
    const pane = await runTmux(this.#options.tmux, [
      "display-message",
      "-p",
      "-t",
      paneId,
      "#{pane_id}",
    ]);
    if (pane.code !== 0 || pane.stdout.trim() !== paneId) return reply("NO no-pane");
    const setupPath = `${this.#options.directory}/invite-${randomHex(8)}`;
    await this.invite(paneId, setupPath);
    await reply(`OK ${setupPath}`);
  }

  async #enrollShell(conn: Deno.UnixConn, lines: AsyncGenerator<string>): Promise<void> {
    const writer = conn.writable.getWriter();
    const sendLine = (line: string) =>
      writer.write(new TextEncoder().encode(line + "\n")).catch(() => {});
    const first = await lines.next();
    const token = first.done ? "" : first.value.slice(2);
    const invitation = this.#invitations.get(token);
    if (first.done || !first.value.startsWith("E ") || !invitation) {
      await sendLine("NO expired");
      return closeQuietly(conn);
    }
    const refuse = async (reason: string, helper?: HelperHello | null) => {
      if (helper) closeQuietly(helper.conn);
      await sendLine(`NO ${reason}`);
      closeQuietly(conn);
    };
    if (!this.#options.tmuxSupported) return refuse("tmux-too-old");
    if (this.shells.has(invitation.paneId)) return refuse("already-enrolled");
    if (this.shells.size >= MAX_ENROLLMENTS) {
      await this.#withdraw(token);
      return refuse("full");
    }
    const pane = await runTmux(this.#options.tmux, [
      "display-message",
      "-p",
      "-t",
      invitation.paneId,
      "#{pane_id} #{pane_pid} #{pane_dead} #{pid}",
    ]);
    const [paneId, panePid, dead, tmuxPid] = pane.stdout.trim().split(" ");
    if (pane.code !== 0 || paneId !== invitation.paneId || dead !== "0") {
      return refuse("not-root");
    }
    const identity = await readIdentity(Number(panePid));
    if (!identity || !await holdsFileOpen(identity.pid, invitation.proofPath)) {
      return refuse("not-root");
    }
    const helper = await this.#claimHelper(token, identity.pid);
    if (!helper) return refuse("no-helper");
    await this.#withdraw(token);
    const helperWriter = helper.writer;
    const tmuxServer = await readIdentity(Number(tmuxPid));
    let discarded = false;
    const shell: EnrolledShell = {
      paneId: invitation.paneId,
      identity,
      tmuxServer,
      processGeneration: randomHex(),
      enrollmentGeneration: randomHex(),
      helperPid: helper.pid,
      run: null,
      sendLine,
      sendFrame: (message, body) => helperWriter.write(encodeFrame(message, body)).catch(() => {}),
      discard: (cause = "shell") => {
        if (!discarded) {
          discarded = true;
          if (this.shells.get(shell.paneId) === shell) this.shells.delete(shell.paneId);
        }
        shell.run?.events.push({ kind: "gone", cause });
        shell.release();
      },
      release: (force = false) => {
        if (!force && (!discarded || shell.run)) return;
        closeQuietly(conn);
        closeQuietly(helper.conn);
      },
    };
    this.shells.set(shell.paneId, shell);
    await sendLine(`OK ${shell.enrollmentGeneration}`);
    this.#listenToShell(shell, lines);
    this.#listenToHelper(shell, helper.frames);
  }

  async #listenToShell(shell: EnrolledShell, lines: AsyncGenerator<string>): Promise<void> {
    try {
      for await (const line of lines) {
        const [kind, runId] = line.split(" ");
        if (kind === "N" && shell.run?.runId === runId) shell.run.events.push({ kind: "busy" });
      }
    } catch {
      // A reset connection ends the enrollment like EOF does.
    }
    shell.discard("shell");
  }

  async #listenToHelper(shell: EnrolledShell, frames: AsyncGenerator<unknown>): Promise<void> {
    try {
      for await (const raw of frames) {
        const frame = raw as { header: unknown; body: Uint8Array };
        const message = parseHelperMessage(frame.header);
        if (!message) throw new MalformedFrame("unexpected helper message");
        if (message.type === "hello" || message.type === "proved") continue;
        const run = shell.run;
        if (!run || run.runId !== message.run_id) {
          // A request withdrawn after its deadline: make sure it never runs.
          if (message.type === "ready") {
            await shell.sendFrame({ type: "abort", run_id: message.run_id });
          }
          continue;
        }
        if (message.type === "ready") {
          run.events.push({
            kind: "ready",
            token: message.token,
            digest: message.digest,
            helperPid: shell.helperPid,
          });
        } else run.events.push({ kind: "helper", message, body: frame.body });
      }
    } catch {
      // Malformed frames or a reset: the channel is in doubt, so the enrollment goes.
    }
    shell.discard("helper");
  }
}

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = pending.indexOf("\n")) !== -1) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
    }
    if (pending.length > 4096) return;
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Already closed by the other side or by an earlier failure.
  }
}
