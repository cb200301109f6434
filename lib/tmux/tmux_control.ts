// A persistent tmux control-mode client (`tmux -C`) per tmux server and session, so that waits
// wake on `%output` the moment a pane writes instead of polling, and a command line costs a
// write on a pipe instead of a process start. tmux reports output only for the panes of the
// session a control client is attached to, so there is one connection per session that holds a
// watched pane, opened lazily and closed when idle. A connection attaches with
// `-f ignore-size,read-only`, so it never sizes a window and its keys could never reach a pane;
// it verifies those flags before use. Everything here is an accelerator: when control mode is
// unavailable or a connection dies, callers fall back to spawning a client per command and to
// polling, and a dead tmux server is reconnected to on the next use.
import {
  clientArgs,
  socketPath,
  TMUX_ANSWER_SECONDS,
  type TmuxClient,
  tmuxEnvironment,
  TmuxNotAnswering,
  type TmuxResult,
} from "./tmux.ts";
import { exactReads } from "../util/exact_reads.ts";
import { randomHex } from "../util/ids.ts";
import { delay } from "../util/delay.ts";
import { concatBytes } from "../util/bytes.ts";
import { OutputSpotter } from "./output_spotter.ts";

/** A connection nobody used for this long is closed, so a person sees it only while it works. */
const IDLE_MS = 60_000;
/** After control mode failed to start, the spawn-and-poll path is used for this long. */
const RETRY_AFTER_MS = 5_000;
/** A pane nobody waited on for this long has its output paused for the connection. */
const WATCH_GRACE_MS = 1_000;
/** While a pane keeps writing, a wait looks at it at most once per this interval... */
const BUSY_REST_MS = 25;
/**
 * ...once it has looked this many times in a row with output arriving during each look. Typing a
 * line and pressing Enter is such a short run of looks, and resting after the first of them put
 * 25 ms into a twentieth of the wake-ups (`deno task bench`: p95 18-24 ms with 1, 3.7-5.1 ms with
 * 3, the same CPU for a flood).
 */
const BUSY_LOOKS_BEFORE_REST = 3;
/** More sessions than this with watched panes: the rest are polled. */
const MAX_CONNECTIONS = 16;
const REQUIRED_FLAGS = ["control-mode", "ignore-size", "read-only"];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

type Block = { ok: boolean; lines: string[] };
type Request = {
  sentinel: string;
  blocks: Block[];
  resolve: (blocks: Block[]) => void;
  reject: (error: Error) => void;
};

/** The connection ended (the server exited or the client was detached). */
export class ControlLost extends Error {}

/**
 * One argument of a control-mode command line. Control mode reads tmux's configuration syntax,
 * where a single-quoted word is taken literally; the arguments used here never hold a quote or
 * a line break, and one that does is refused rather than escaped.
 */
function quote(arg: string): string {
  if (arg === ";") return arg;
  if (/['\n\r]/.test(arg)) throw new Error("a control-mode argument holds a quote or line break");
  return `'${arg}'`;
}

export class ControlConnection {
  sessionId: string | null = null;
  closed = false;
  /** tmux refused the attach itself (its target is gone): control mode as such may be fine. */
  refused = false;
  readonly ended: Promise<void>;
  private readonly child: Deno.ChildProcess;
  private readonly writer: WritableStreamDefaultWriter<Uint8Array>;
  private readonly stdout: ReadableStreamDefaultReader<Uint8Array>;
  private readonly requests: Request[] = [];
  private readonly counts = new Map<string, number>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly lastWatched = new Map<string, number>();
  private readonly silenced = new Set<string>();
  private readonly spotters = new Map<string, Set<OutputSpotter>>();
  private readonly sentinelPrefix = `tmux-mcp-end-${randomHex(6)}-`;
  private sequence = 0;
  private readonly attached = Promise.withResolvers<void>();
  private idle: ReturnType<typeof setTimeout> | undefined;

  constructor(client: TmuxClient, target: string, private readonly onEnd: () => void) {
    this.child = new Deno.Command(client.bin, {
      args: [
        ...clientArgs(client.socket),
        "-C",
        "attach-session",
        "-f",
        "ignore-size,read-only",
        "-t",
        target,
      ],
      env: tmuxEnvironment(),
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.writer = this.child.stdin.getWriter();
    this.stdout = exactReads(this.child.stdout).getReader();
    this.attached.promise.catch(() => {});
    this.ended = this.read().catch(() => {}).finally(() => this.end());
    this.touch();
  }

  /** Output events seen so far for a pane of this connection's session. */
  outputCount(paneId: string): number {
    return this.counts.get(paneId) ?? 0;
  }

  /**
   * Marks the pane as watched, resuming its output if it was paused; true when it was, since
   * output in between was not counted.
   */
  async watch(paneId: string, signal?: AbortSignal): Promise<boolean> {
    this.lastWatched.set(paneId, performance.now());
    if (!this.silenced.has(paneId)) return false;
    this.silenced.delete(paneId);
    await this.run(["refresh-client", "-A", `${paneId}:continue`], signal);
    return true;
  }

  /**
   * Looks for `text` in the pane's output from now on. The pane is resumed first if it was
   * paused, and stays unpaused while the spotter is kept (until `forget`).
   */
  async spot(paneId: string, text: string, signal?: AbortSignal): Promise<OutputSpotter> {
    await this.watch(paneId, signal);
    const spotter = new OutputSpotter(text);
    const set = this.spotters.get(paneId) ?? new Set();
    this.spotters.set(paneId, set);
    set.add(spotter);
    if (this.closed) spotter.release();
    return spotter;
  }

  forget(paneId: string, spotter: OutputSpotter): void {
    const set = this.spotters.get(paneId);
    set?.delete(spotter);
    if (set?.size === 0) this.spotters.delete(paneId);
  }

  /** Resolves at the pane's next `%output`, after `ms`, on abort, or when the connection ends. */
  nextOutput(paneId: string, ms: number, signal: AbortSignal): Promise<void> {
    this.touch();
    this.lastWatched.set(paneId, performance.now());
    return new Promise((resolve) => {
      const set = this.listeners.get(paneId) ?? new Set();
      this.listeners.set(paneId, set);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        set.delete(done);
        if (set.size === 0 && this.listeners.get(paneId) === set) this.listeners.delete(paneId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener("abort", done);
      set.add(done);
      if (this.closed || signal.aborted) done();
    });
  }

  /**
   * Runs one command line (`;` separates commands, as in argv) and returns what a client would
   * have printed. The line is followed by a line that fails to parse with a unique name: tmux
   * answers every line in order and a parse error runs no command (so no alias or hook can
   * change it), so its `%error` block marks where this line's answers end. A line unanswered
   * for TMUX_ANSWER_SECONDS fails with TmuxNotAnswering and drops the connection (`abandon`);
   * one whose signal aborts fails with its reason but stays queued until its answer comes, so
   * answers are always matched to their lines in order.
   */
  run(args: string[], signal?: AbortSignal): Promise<TmuxResult> {
    if (this.closed) return Promise.reject(new ControlLost("the control connection is closed"));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const line = args.map(quote).join(" ");
    const sentinel = `${this.sentinelPrefix}${++this.sequence}`;
    this.touch();
    return new Promise<Block[]>((resolve, reject) => {
      const request: Request = { sentinel, blocks: [], resolve, reject };
      this.requests.push(request);
      const timer = setTimeout(() => this.abandon(), TMUX_ANSWER_SECONDS * 1000);
      Deno.unrefTimer(timer);
      const abort = () => reject(signal!.reason);
      signal?.addEventListener("abort", abort, { once: true });
      request.resolve = (blocks) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        resolve(blocks);
      };
      request.reject = (error) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        reject(error);
      };
      // A line read before the attach completes would run without a session: wait for it.
      this.attached.promise.then(() => this.writer.write(encoder.encode(`${line}\n${sentinel}\n`)))
        .catch(() => this.close());
    }).then((blocks) => {
      const ok = blocks.every((block) => block.ok);
      const text = (wanted: boolean) =>
        blocks.filter((block) => block.ok === wanted).flatMap((block) => block.lines)
          .map((l) => `${l}\n`).join("");
      return { code: ok ? 0 : 1, stdout: text(true), stderr: text(false) };
    });
  }

  /** Detaches: an empty line ends a control client; it is killed if it does not go. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.writer.write(encoder.encode("\n")).catch(() => {});
      await this.writer.close().catch(() => {});
      const exited = await Promise.race([
        this.child.status.then(() => true),
        delay(1000).then(() => false),
      ]);
      if (!exited) this.kill();
    }
    await this.ended;
  }

  /**
   * Drops a connection whose tmux server stopped answering: every line in flight fails with
   * TmuxNotAnswering, and the client is killed rather than detached, since a detach waits for
   * that same server. A later line opens a new connection, so no late answer can reach it.
   */
  private abandon(): void {
    if (this.closed) return;
    this.closed = true;
    for (const request of this.requests.splice(0)) request.reject(new TmuxNotAnswering());
    this.kill();
  }

  /**
   * Kills the client and stops reading it. Its stdout does not end with it: the client handed
   * that descriptor to the tmux server, which holds it until it reads the message (never, while
   * it is stopped).
   */
  private kill(): void {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // It exited in the meantime.
    }
    this.stdout.cancel().catch(() => {});
  }

  private touch(): void {
    clearTimeout(this.idle);
    const idle = setTimeout(() => {
      if (this.listeners.size === 0 && this.requests.length === 0) this.close();
      else this.touch();
    }, IDLE_MS);
    Deno.unrefTimer(idle);
    this.idle = idle;
  }

  private end(): void {
    this.closed = true;
    this.attached.reject(new ControlLost("the control client never attached"));
    clearTimeout(this.idle);
    for (const request of this.requests.splice(0)) {
      request.reject(new ControlLost("the control connection ended"));
    }
    for (const set of this.listeners.values()) for (const done of [...set]) done();
    for (const set of this.spotters.values()) for (const spotter of set) spotter.release();
    this.writer.close().catch(() => {});
    this.child.status.catch(() => {});
    this.onEnd();
  }

  /** Splits stdout into lines without decoding `%output` payloads, which are only counted. */
  private async read(): Promise<void> {
    let carry: Uint8Array | null = null;
    let block: { guard: string; fromUs: boolean; lines: string[]; ok: boolean } | null = null;
    while (true) {
      const next = await this.stdout.read();
      if (next.done) break;
      const chunk = next.value;
      const bytes: Uint8Array = carry ? concatBytes([carry, chunk]) : chunk;
      carry = null;
      let start = 0;
      while (true) {
        const end = bytes.indexOf(10, start);
        if (end < 0) break;
        const line = bytes.subarray(start, end);
        start = end + 1;
        if (block) {
          if (line[0] === 37) { // %
            const text = decoder.decode(line);
            const close = /^%(end|error) (.*)$/.exec(text);
            if (close && close[2] === block.guard) {
              block.ok = close[1] === "end";
              if (block.fromUs) this.answer({ ok: block.ok, lines: block.lines });
              else if (!block.ok && this.sessionId === null) this.refused = true;
              block = null;
              continue;
            }
          }
          block.lines.push(decoder.decode(line));
        } else if (startsWith(line, OUTPUT)) {
          this.output(line);
        } else if (line[0] === 37) {
          const text = decoder.decode(line);
          const begin = /^%begin (\d+ \d+ (\d+))$/.exec(text);
          if (begin) block = { guard: begin[1], fromUs: begin[2] === "1", lines: [], ok: true };
          const session = /^%session-changed (\$\d+) /.exec(text);
          if (session) {
            this.sessionId = session[1];
            this.attached.resolve();
          }
        }
      }
      if (start < bytes.length) carry = bytes.slice(start);
    }
  }

  private output(line: Uint8Array): void {
    let end = OUTPUT.length;
    while (end < line.length && line[end] !== 32) end++;
    const paneId = decoder.decode(line.subarray(OUTPUT.length - 1, end));
    this.counts.set(paneId, (this.counts.get(paneId) ?? 0) + 1);
    const spotters = this.spotters.get(paneId);
    for (const spotter of spotters ?? []) spotter.feed(line.subarray(end + 1));
    // Every pane of the session reports to this client; one nobody waits on is paused, so a
    // busy pane costs tmux no escaping and this process no reading while nobody watches it.
    // (`pause` discards what tmux queued for the pane; `off` leaves it, and tmux 3.3a then
    // crashes when the pane is turned back on: tests/tmux_control_test.ts.)
    const watched = this.lastWatched.get(paneId);
    if (
      !this.silenced.has(paneId) && !spotters &&
      (watched === undefined || performance.now() - watched > WATCH_GRACE_MS)
    ) {
      this.silenced.add(paneId);
      this.lastWatched.delete(paneId);
      this.run(["refresh-client", "-A", `${paneId}:pause`]).catch(() => {});
    }
    const set = this.listeners.get(paneId);
    for (const done of set ?? []) done();
  }

  private answer(block: Block): void {
    const request = this.requests[0];
    if (!request) return;
    if (!block.ok && block.lines.length === 1 && block.lines[0].endsWith(`: ${request.sentinel}`)) {
      this.requests.shift();
      request.resolve(request.blocks);
      return;
    }
    request.blocks.push(block);
  }
}

const OUTPUT = encoder.encode("%output %");

function startsWith(line: Uint8Array, prefix: Uint8Array): boolean {
  if (line.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[i] !== prefix[i]) return false;
  return true;
}

/** The control connections to one tmux server, one per session that holds a watched pane. */
class ControlServer {
  readonly connections = new Set<ControlConnection>();
  private readonly opening = new Map<string, Promise<ControlConnection | null>>();
  private retryAt = 0;

  constructor(readonly client: TmuxClient) {}

  /** A live connection for commands: any will do, since commands are not session-bound. */
  async any(paneId: string): Promise<ControlConnection | null> {
    for (const connection of this.connections) if (!connection.closed) return connection;
    return await this.open(paneId);
  }

  /** A live connection attached to the session that holds `paneId`, or null (poll instead). */
  async forPane(paneId: string): Promise<ControlConnection | null> {
    const any = [...this.connections].find((connection) => !connection.closed);
    if (!any) return await this.open(paneId);
    let session: string;
    try {
      const found = await any.run(["display-message", "-p", "-t", paneId, "#{session_id}"]);
      session = found.stdout.trim();
      if (found.code !== 0 || !/^\$\d+$/.test(session)) return null;
    } catch {
      return null;
    }
    for (const connection of this.connections) {
      if (!connection.closed && connection.sessionId === session) return connection;
    }
    return await this.open(session);
  }

  private open(target: string): Promise<ControlConnection | null> {
    if (Date.now() < this.retryAt || this.connections.size >= MAX_CONNECTIONS) {
      return Promise.resolve(null);
    }
    const pending = this.opening.get(target);
    if (pending) return pending;
    const opened = this.attach(target).finally(() => this.opening.delete(target));
    this.opening.set(target, opened);
    return opened;
  }

  private async attach(target: string): Promise<ControlConnection | null> {
    let connection: ControlConnection;
    try {
      connection = new ControlConnection(
        this.client,
        target,
        () => this.connections.delete(connection),
      );
    } catch {
      this.retryAt = Date.now() + RETRY_AFTER_MS;
      return null;
    }
    this.connections.add(connection);
    let unanswered = false;
    const flags = await connection.run(["display-message", "-p", "#{client_flags}"])
      .catch((error) => {
        unanswered = error instanceof TmuxNotAnswering;
        return null;
      });
    if (unanswered) {
      // The server is there but does not answer: a spawned client would wait just the same.
      this.retryAt = Date.now() + RETRY_AFTER_MS;
      await connection.close();
      throw new TmuxNotAnswering();
    }
    const have = flags?.stdout.trim().split(",") ?? [];
    if (flags?.code !== 0 || !REQUIRED_FLAGS.every((flag) => have.includes(flag))) {
      await connection.close();
      // No answer, or a client that took no flags: control mode as needed is not available.
      // A refused target, or a client that did not attach, says nothing about it.
      if ((flags === null && !connection.refused) || have.includes("control-mode")) {
        this.retryAt = Date.now() + RETRY_AFTER_MS;
      }
      return null;
    }
    return connection;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
    await Promise.all([...this.connections].map((connection) => connection.close()));
  }
}

const servers = new Map<string, ControlServer>();

function serverKey(client: TmuxClient): string {
  return `${client.bin}\n${socketPath(client.socket)}`;
}

function serverFor(client: TmuxClient): ControlServer {
  const key = serverKey(client);
  let server = servers.get(key);
  if (!server) {
    server = new ControlServer(client);
    servers.set(key, server);
  }
  return server;
}

/**
 * Runs a command line through a control connection. Null when control mode is not available,
 * so the caller spawns a client instead; ControlLost when the connection ended with the line
 * in flight (a caller whose line only reads may simply run it again another way);
 * TmuxNotAnswering when the tmux server did not answer (a spawned client would not be answered
 * either).
 */
export async function controlRun(
  client: TmuxClient,
  paneId: string,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxResult | null> {
  const connection = await serverFor(client).any(paneId);
  if (!connection) return null;
  return await connection.run(args, signal);
}

/**
 * The commands the general tools may send through a control connection, with the flags that
 * make them name their object: a control client has a current session and a spawned one has
 * none, so without such a flag the two could act on different objects. None of them waits.
 */
const ROUTED: Record<string, { names: string[]; reads: boolean }> = {
  "display-message": { names: ["-p"], reads: true },
  "list-sessions": { names: [], reads: true },
  "list-windows": { names: ["-a", "-t"], reads: true },
  "list-panes": { names: ["-a", "-t"], reads: true },
  "show-options": { names: ["-s", "-g", "-t"], reads: true },
  // Into, out of and away from a private buffer (lib/tmux/capture.ts): running such a line
  // again through a spawned client after a lost connection is harmless, as for a read.
  "capture-pane": { names: ["-b"], reads: true },
  "save-buffer": { names: ["-b"], reads: true },
  "delete-buffer": { names: ["-b"], reads: true },
  "load-buffer": { names: ["-b"], reads: false },
  "paste-buffer": { names: ["-t"], reads: false },
  "send-keys": { names: ["-t"], reads: false },
};

/** "read" or "write" when every command of the line may be routed, else null. */
function routing(args: string[]): "read" | "write" | null {
  const commands: string[][] = [[]];
  for (const arg of args) {
    if (arg === ";") commands.push([]);
    else commands.at(-1)!.push(arg);
  }
  let reads = true;
  for (const [name, ...rest] of commands) {
    const entry = ROUTED[name ?? ""];
    if (!entry || (entry.names.length && !entry.names.some((f) => rest.includes(f)))) return null;
    reads &&= entry.reads;
  }
  return reads ? "read" : "write";
}

/**
 * For the general tools: a command line made of the commands above runs through a control
 * connection already open to that server (a wait or a run opened it), else null and the caller
 * spawns a client. A read lost with its connection is run again that way; a write is not,
 * since it may have happened, and fails as a spawned client would when its server exits.
 */
export async function controlCall(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxResult | null> {
  const server = servers.get(serverKey(client));
  const connection = server && [...server.connections].find((c) => !c.closed);
  const route = routing(args);
  if (!connection || !route || args.some((arg) => /['\n\r]/.test(arg))) return null;
  try {
    return await connection.run(args, signal);
  } catch (error) {
    if (signal?.aborted || !(error instanceof ControlLost)) throw error;
    return route === "read" ? null : { code: 1, stdout: "", stderr: "server exited" };
  }
}

/**
 * Wakes a polling loop when a pane writes. Create it before the loop's first look and call
 * `wake` where the loop used to sleep: it returns at once if the pane wrote since the previous
 * `wake` returned (so nothing that arrived during a look is missed), at the pane's next output,
 * or after `ms` — the old polling interval, which stays as the fallback. When the pane wrote
 * during a look, the next look waits as long as that one took (and at least BUSY_REST_MS once
 * the pane has kept writing for BUSY_LOOKS_BEFORE_REST looks), so a loop never spends more than
 * half its time looking.
 */
export function watchOutput(client: TmuxClient, paneId: string) {
  const server = serverFor(client);
  let attaching: Promise<ControlConnection | null> | null = null;
  let connection: ControlConnection | null = null;
  let mark = 0;
  let returnedAt = performance.now();
  let busy = 0;

  const attach = () => {
    // A server that does not answer leaves the loop polling, whose looks then say so.
    attaching ??= server.forPane(paneId).catch(() => null).then((found) => {
      connection = found;
      return found;
    });
    return attaching;
  };
  attach();

  const wake = async (ms: number, signal: AbortSignal): Promise<void> => {
    const calledAt = performance.now();
    const deadline = calledAt + ms;
    try {
      if (connection?.closed) {
        connection = null;
        attaching = null;
        attach();
      }
      if (!connection) {
        const settled = new AbortController();
        const fresh = await Promise.race([
          attaching,
          delay(ms, AbortSignal.any([signal, settled.signal])).then(() => null),
        ]);
        settled.abort();
        if (!fresh) return await delay(deadline - performance.now(), signal);
        // Output between the last look and now was not counted: look again at once.
        await fresh.watch(paneId, signal).catch(() => {});
        mark = fresh.outputCount(paneId);
        return;
      }
      const live = connection;
      if (await live.watch(paneId, signal).catch(() => true)) {
        mark = live.outputCount(paneId);
        return;
      }
      if (live.outputCount(paneId) !== mark) {
        // Output during the look: rest as long as it took, and once the pane keeps writing,
        // at least BUSY_REST_MS, so a busy pane is looked at a bounded number of times.
        const look = calledAt - returnedAt;
        const rest = ++busy > BUSY_LOOKS_BEFORE_REST ? Math.max(look, BUSY_REST_MS) : look;
        await delay(Math.min(rest, deadline - calledAt), signal);
      } else {
        busy = 0;
        await live.nextOutput(paneId, Math.max(0, deadline - performance.now()), signal);
      }
      mark = live.outputCount(paneId);
    } finally {
      returnedAt = performance.now();
    }
  };
  /**
   * Looks for `text` in the pane's output from now on, for a loop that need not look before
   * it appears; null when the pane's output cannot be followed (no control connection, or none
   * before `signal` aborts), and the loop looks as it would without. `stop` ends the spotting.
   */
  const spot = async (text: string, signal: AbortSignal) => {
    const live = await unlessAborted(attach(), signal);
    const spotter = live && !live.closed && !signal.aborted
      ? await live.spot(paneId, text, signal).catch(() => null)
      : null;
    if (!live || !spotter) return null;
    return {
      spotter,
      /** False once the connection ended: the text can no longer be seen arriving. */
      following: () => !live.closed,
      stop: () => live.forget(paneId, spotter),
    };
  };
  return { wake, spot };
}

/** `promise`'s value, or null as soon as `signal` aborts. */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(null);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Ends every control connection (the server is shutting down). */
export async function closeControlConnections(): Promise<void> {
  const all = [...servers.values()];
  servers.clear();
  await Promise.all(all.map((server) => server.close()));
}
