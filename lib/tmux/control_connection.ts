// One tmux control-mode client (`tmux -C`) attached to a session: it answers command lines in
// order (a write on a pipe instead of a process start per command) and counts, and lets a wait
// follow, the `%output` of that session's panes. It attaches with the flags versions.ts gives
// (`ignore-size`, so it never sizes a window; `read-only` only where tmux does not then refuse
// the person's own send-keys), and leaves as soon as nobody has used it for a second. Parsing its stdout is
// control_lines.ts's job; choosing and opening connections is control_servers.ts's.
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
import { type ControlBlock, ControlLines } from "./control_lines.ts";
import { OutputSpotter } from "./output_spotter.ts";
import { identifyGate } from "./identify_gate.ts";
import type { SharedLock } from "../util/shared_lock.ts";

/**
 * A connection nobody used for this long is closed: it stays attached to the person's tmux only
 * while calls use it (a burst of calls shares one), not between an agent's turns.
 */
const IDLE_MS = 1_000;
/** A pane nobody waited on for this long has its output paused for the connection. */
const WATCH_GRACE_MS = 1_000;

const encoder = new TextEncoder();

type Request = {
  sentinel: string;
  blocks: ControlBlock[];
  resolve: (blocks: ControlBlock[]) => void;
  reject: (error: Error) => void;
};

/** How a new client's attach went: tmux attached it, it ended first, or tmux did not answer. */
export type Attach = "attached" | "ended" | "unanswered";

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
  /** Held shared by every line in flight and by a detach (identify_gate.ts). */
  private readonly gate: SharedLock;

  constructor(
    client: TmuxClient,
    target: string | null,
    flags: string[],
    private readonly onEnd: () => void,
  ) {
    this.gate = identifyGate(socketPath(client.socket));
    this.child = new Deno.Command(client.bin, {
      args: [
        ...clientArgs(client.socket),
        "-C",
        "attach-session",
        "-f",
        flags.join(","),
        ...(target === null ? [] : ["-t", target]),
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

  /** Waits until tmux attached this client, or it ended, or `ms` passed unanswered. */
  async attach(ms: number): Promise<Attach> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unanswered = new Promise<Attach>((resolve) => {
      timer = setTimeout(() => resolve("unanswered"), ms);
    });
    const attached = this.attached.promise.then((): Attach => "attached", (): Attach => "ended");
    try {
      return await Promise.race([attached, unanswered]);
    } finally {
      clearTimeout(timer);
    }
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

  /**
   * Asks tmux to report when the pane dies (`%subscription-changed`, checked once a second): a
   * pane kept after its process exits (remain-on-exit) writes nothing then. One subscription
   * per waited-on pane, never one for every pane (`%*`): tmux evaluates each subscription on
   * every pane it names once a second for as long as this client stays attached. False when
   * this tmux (before 3.2) cannot, so a wait must look now and then.
   */
  async followDeath(paneId: string, signal?: AbortSignal): Promise<boolean> {
    if (this.deathsFollowed.has(paneId)) return true;
    const name = `tmux-mcp-dead-${paneId.slice(1)}`;
    const out = await this.run(["refresh-client", "-B", `${name}:${paneId}:#{pane_dead}`], signal)
      .catch(() => null);
    if (out?.code !== 0) return false;
    this.deathsFollowed.add(paneId);
    return true;
  }

  /** Whether tmux reports the pane's death to this client (followDeath). */
  followsDeath(paneId: string): boolean {
    return this.deathsFollowed.has(paneId);
  }

  private readonly deathsFollowed = new Set<string>();

  /**
   * Resolves at the pane's next `%output` or change (control_lines.ts `changed`), after `ms`,
   * on abort, or when the connection ends.
   */
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
        // The wait looks now, perhaps through a spawned client (versions.ts
        // capturePrintsToControl), and comes back: the connection is in use until then.
        if (!this.closed) this.touch();
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
  async run(args: string[], signal?: AbortSignal): Promise<TmuxResult> {
    return resultOf(await this.runLines([args], signal));
  }

  /**
   * Runs several command lines at one write and returns their answer blocks in order. Each line
   * is its own command list for tmux, so one that fails does not stop the next; a line of one
   * command answers exactly one block.
   */
  async runLines(lines: string[][], signal?: AbortSignal): Promise<ControlBlock[]> {
    const lost = () => new ControlLost("the control connection is closed");
    if (this.closed) throw lost();
    const release = await this.gate.shared(signal);
    if (this.closed) {
      release();
      throw lost();
    }
    return this.send(lines, release, signal);
  }

  /** Writes the lines once attached; `release` goes when their answer (or loss) comes. */
  private send(lines: string[][], release: () => void, signal?: AbortSignal) {
    const text = lines.map((args) => `${args.map(quote).join(" ")}\n`).join("");
    const sentinel = `${this.sentinelPrefix}${++this.sequence}`;
    this.touch();
    return new Promise<ControlBlock[]>((resolve, reject) => {
      const request: Request = { sentinel, blocks: [], resolve, reject };
      this.requests.push(request);
      const timer = setTimeout(() => this.abandon(), TMUX_ANSWER_SECONDS * 1000);
      Deno.unrefTimer(timer);
      const abort = () => reject(signal!.reason);
      signal?.addEventListener("abort", abort, { once: true });
      request.resolve = (blocks) => {
        release();
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        resolve(blocks);
      };
      request.reject = (error) => {
        release();
        clearTimeout(timer);
        signal?.removeEventListener("abort", abort);
        reject(error);
      };
      // A line read before the attach completes would run without a session: wait for it.
      this.attached.promise.then(() => this.writer.write(encoder.encode(`${text}${sentinel}\n`)))
        .catch(() => this.close());
    });
  }

  /**
   * Detaches: an empty line ends a control client; it is killed if it does not go. A detach is
   * a notification for the other control clients, so it waits out one that is starting.
   */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      const release = await this.gate.shared();
      try {
        await this.writer.write(encoder.encode("\n")).catch(() => {});
        await this.writer.close().catch(() => {});
        const exited = await Promise.race([
          this.child.status.then(() => true),
          delay(1000).then(() => false),
        ]);
        if (!exited) this.kill();
      } finally {
        release();
      }
    }
    await this.ended;
  }

  /**
   * Drops a connection whose tmux server stopped answering: every line in flight fails with
   * TmuxNotAnswering, and the client is killed rather than detached, since a detach waits for
   * that same server. A later line opens a new connection, so no late answer can reach it.
   */
  private abandon(): void {
    this.drop(new TmuxNotAnswering());
  }

  /**
   * Fails every line in flight with `error` and kills the client (see `abandon`), inside the
   * identify gate: a control client that dies while another of ours identifies can crash tmux
   * before 3.7 (GitHub PR 5004), and the gate keeps our attaches apart from it.
   */
  private drop(error: Error): void {
    if (this.closed) return;
    this.closed = true;
    for (const request of this.requests.splice(0)) request.reject(error);
    this.gate.shared().then((release) => {
      this.kill();
      release();
    });
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

  /** Reads stdout as control-mode events until it ends. */
  private async read(): Promise<void> {
    const lines = new ControlLines({
      block: (block) => {
        if (block.fromUs) this.answer(block);
        else if (!block.ok && this.sessionId === null) this.refused = true;
      },
      output: (paneId, payload) => this.output(paneId, payload),
      sessionChanged: (sessionId) => {
        this.sessionId = sessionId;
        this.attached.resolve();
      },
      changed: (paneId) => {
        const sets = paneId === null ? [...this.listeners.values()] : [this.listeners.get(paneId)];
        for (const set of sets) for (const done of [...set ?? []]) done();
      },
      desync: () => this.drop(new ControlLost("a pane's text forged a control-mode block end")),
    });
    while (true) {
      const next = await this.stdout.read();
      if (next.done) break;
      lines.feed(next.value);
    }
  }

  private output(paneId: string, payload: Uint8Array): void {
    this.counts.set(paneId, (this.counts.get(paneId) ?? 0) + 1);
    const spotters = this.spotters.get(paneId);
    for (const spotter of spotters ?? []) spotter.feed(payload);
    // Every pane of the session reports to this client; one nobody waits on is paused, so a
    // busy pane costs tmux no escaping and this process no reading while nobody watches it.
    // (`pause` discards what tmux queued for the pane; `off` leaves it, and tmux 3.3a then
    // crashes when the pane is turned back on: tests/tmux_control_test.ts.)
    const watched = this.lastWatched.get(paneId);
    const set = this.listeners.get(paneId);
    if (
      !this.silenced.has(paneId) && !spotters && !set &&
      (watched === undefined || performance.now() - watched > WATCH_GRACE_MS)
    ) {
      this.silenced.add(paneId);
      this.lastWatched.delete(paneId);
      this.run(["refresh-client", "-A", `${paneId}:pause`]).catch(() => {});
    }
    for (const done of set ?? []) done();
  }

  private answer(block: ControlBlock): void {
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

/** What a client would have printed for a command line answered by `blocks`. */
export function resultOf(blocks: ControlBlock[]): TmuxResult {
  const ok = blocks.every((block) => block.ok);
  const text = (wanted: boolean) =>
    blocks.filter((block) => block.ok === wanted).flatMap((block) => block.lines)
      .map((l) => `${l}\n`).join("");
  return { code: ok ? 0 : 1, stdout: text(true), stderr: text(false) };
}
