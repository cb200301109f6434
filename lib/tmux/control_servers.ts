// The control connections an MCP server holds (in the ControlPool its clients carry,
// lib/tmux/tmux.ts), per tmux server, and which tmux command lines go through them. tmux reports output only for the panes of the session a control client is
// attached to, so there is one connection per session that holds a watched pane, opened lazily
// and closed when idle; a connection verifies its flags before use. Everything here is an
// accelerator: when control mode is unavailable or a connection dies, callers spawn a client
// per command and poll, and a dead tmux server is reconnected to on the next use. Whether a
// tmux may have a control client of ours at all is versions.ts's call (before 3.7 a control
// client can crash the person's whole tmux server): where it may not, no connection is opened.
import {
  behavioursOf,
  ControlPool,
  socketPath,
  TMUX_ANSWER_SECONDS,
  type TmuxClient,
  TmuxNotAnswering,
  type TmuxResult,
} from "./tmux.ts";
import { type Attach, ControlConnection, ControlLost, resultOf } from "./control_connection.ts";
import { identifyGate } from "./identify_gate.ts";
import type { ControlBlock } from "./control_lines.ts";

/** After control mode failed to start, the spawn-and-poll path is used for this long. */
const RETRY_AFTER_MS = 5_000;
/** More sessions than this with watched panes: the rest are polled. */
const MAX_CONNECTIONS = 16;

/** The control connections to one tmux server, one per session that holds a watched pane. */
export class ControlServer {
  readonly connections = new Set<ControlConnection>();
  /**
   * The connections whose flags were verified: only these take lines. One still being verified
   * may yet be closed (its target refused, or control mode unusable), and a line queued on it
   * would be lost with it.
   */
  private readonly verified = new Set<ControlConnection>();
  private readonly opening = new Map<string, Promise<ControlConnection | null>>();
  /**
   * The last open asked for: opens happen one at a time, so waits begun together share the
   * connection the first of them made instead of each attaching one. (That a detach never meets
   * an attach is identify_gate.ts's: a starting control client is when tmux can crash.)
   */
  private turn: Promise<unknown> = Promise.resolve();
  private retryAt = 0;
  /** The flags a connection attaches with, or null where control mode is not used (versions.ts). */
  private readonly attachFlags: Promise<string[] | null>;
  /** Whether a capture printed to a control client is freed by this tmux (versions.ts). */
  private readonly printsCaptures: Promise<boolean>;

  constructor(readonly client: TmuxClient) {
    const tmux = behavioursOf(client);
    this.attachFlags = tmux.then((tmux) => tmux.controlMode ? tmux.attachFlags : null);
    this.printsCaptures = tmux.then((tmux) => tmux.capturePrintsToControl);
  }

  /**
   * The general connection for `lines`, or null when they are to go through a spawned client:
   * before tmux 3.6 a `capture-pane -p` answered to a control client is never freed (94bafa5),
   * so there such a capture never goes through one.
   */
  async generalFor(lines: string[][]): Promise<ControlConnection | null> {
    const prints = lines.some((args) =>
      commandsOf(args).some(([name, ...rest]) => name === "capture-pane" && rest.includes("-p"))
    );
    if (prints && !await this.printsCaptures) return null;
    return await this.general();
  }

  /** A live connection for commands: any will do, since commands are not session-bound. */
  async any(paneId: string): Promise<ControlConnection | null> {
    if (!await this.attachFlags) return null;
    return this.live() ?? await this.open(paneId);
  }

  /**
   * Whether this tmux server answered a spawned client since the last connection to it ended.
   * A control client attaches, and attach-session starts a tmux server when none runs: a
   * general call must never create one (nor leave its socket behind), so the first call to a
   * server goes through a spawned client, and only one that server answered opens a connection.
   */
  private running = false;

  /** A spawned client was answered: the server runs, and a connection may be opened to it. */
  markRunning(): void {
    this.running = true;
  }

  /**
   * A live connection for the general tools' commands, opened (attached to whichever session
   * tmux picks) when there is none yet and the server is known to run.
   */
  async general(): Promise<ControlConnection | null> {
    if (!await this.attachFlags) return null;
    return this.live() ?? (this.running ? await this.open(null) : null);
  }

  /** A live connection attached to the session that holds `paneId`, or null (poll instead). */
  async forPane(paneId: string): Promise<ControlConnection | null> {
    if (!await this.attachFlags) return null;
    const any = this.live() ?? await this.open(paneId);
    if (!any) return null;
    let session: string;
    try {
      const found = await any.run(["display-message", "-p", "-t", paneId, "#{session_id}"]);
      session = found.stdout.trim();
      if (found.code !== 0 || !/^\$\d+$/.test(session)) return null;
    } catch {
      return null;
    }
    for (const connection of this.verified) {
      if (!connection.closed && connection.sessionId === session) return connection;
    }
    return await this.open(session);
  }

  /** A verified connection that is still open, if there is one. */
  live(): ControlConnection | null {
    for (const connection of this.verified) if (!connection.closed) return connection;
    return null;
  }

  /**
   * A connection for `target` (a session id, a pane id, or null for the session tmux picks):
   * one that another open made while this one waited its turn (for a pane, any: the caller
   * checks the pane's session), else a new one attached to it.
   */
  private open(target: string | null): Promise<ControlConnection | null> {
    if (!this.mayOpen()) return Promise.resolve(null);
    const key = target ?? "";
    const pending = this.opening.get(key);
    if (pending) return pending;
    const opened = this.inTurn(() => {
      const made = target?.startsWith("$")
        ? [...this.verified].find((c) => !c.closed && c.sessionId === target)
        : this.live();
      if (made) return Promise.resolve(made);
      return this.mayOpen() ? this.attach(target) : Promise.resolve(null);
    }).finally(() => this.opening.delete(key));
    this.opening.set(key, opened);
    return opened;
  }

  private mayOpen(): boolean {
    return Date.now() >= this.retryAt && this.connections.size < MAX_CONNECTIONS;
  }

  /** Runs `step` once every open asked for before it has ended. */
  private inTurn<T>(step: () => Promise<T>): Promise<T> {
    const done = this.turn.then(step);
    this.turn = done.catch(() => {});
    return done;
  }

  /**
   * Starts a control client while no other command of ours is in flight to this tmux server
   * (identify_gate.ts), then checks that it took its flags.
   */
  private async attach(target: string | null): Promise<ControlConnection | null> {
    const flags = await this.attachFlags;
    if (!flags) return null;
    let connection: ControlConnection;
    let attachment: Attach;
    const alone = await identifyGate(socketPath(this.client.socket)).alone();
    try {
      connection = new ControlConnection(
        this.client,
        target,
        flags,
        () => {
          this.connections.delete(connection);
          this.verified.delete(connection);
          // The server may have exited with it: a spawned client finds out first.
          this.running = false;
        },
      );
      this.connections.add(connection);
      attachment = await connection.attach(TMUX_ANSWER_SECONDS * 1000);
    } catch {
      this.retryAt = Date.now() + RETRY_AFTER_MS;
      return null;
    } finally {
      alone();
    }
    let unanswered = attachment === "unanswered";
    const took = unanswered
      ? null
      : await connection.run(["display-message", "-p", "#{client_flags}"]).catch((error) => {
        unanswered = error instanceof TmuxNotAnswering;
        return null;
      });
    if (unanswered) {
      // The server is there but does not answer: a spawned client would wait just the same.
      this.retryAt = Date.now() + RETRY_AFTER_MS;
      await connection.close();
      throw new TmuxNotAnswering();
    }
    const have = took?.stdout.trim().split(",") ?? [];
    if (took?.code !== 0 || ![...flags, "control-mode"].every((flag) => have.includes(flag))) {
      await connection.close();
      // No answer, or a client that took no flags: control mode as needed is not available.
      // A refused target, or a client that did not attach, says nothing about it.
      if ((took === null && !connection.refused) || have.includes("control-mode")) {
        this.retryAt = Date.now() + RETRY_AFTER_MS;
      }
      return null;
    }
    this.verified.add(connection);
    return connection;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.opening.values()]);
    await Promise.all([...this.connections].map((connection) => connection.close()));
  }
}

/** The connections of clients no MCP server made: a lab's, a test's, a benchmark's. */
const UNOWNED = new ControlPool();

function serverKey(client: TmuxClient): string {
  return `${client.bin}\n${socketPath(client.socket)}\n${client.controlMode ?? "auto"}`;
}

/** The connections to `client`'s tmux server in the pool `client` carries. */
export function serverFor(client: TmuxClient): ControlServer {
  const pool = client.control ?? UNOWNED;
  const key = serverKey(client);
  const found = pool.find(key);
  if (found instanceof ControlServer) return found;
  const made = new ControlServer(client);
  pool.keep(key, made);
  return made;
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
 * Not here: the commands that create (a control client's new window starts in its session's
 * directory, a spawned client's in the server process's) and those that kill (killing the
 * session a connection is attached to ends it with the answer in flight); they spawn a client.
 */
const ROUTED: Record<string, { names: string[]; reads: boolean }> = {
  "display-message": { names: ["-p"], reads: true },
  "list-sessions": { names: [], reads: true },
  "list-windows": { names: ["-a", "-t"], reads: true },
  "list-panes": { names: ["-a", "-t"], reads: true },
  "show-options": { names: ["-s", "-g", "-t"], reads: true },
  // Into, out of and away from a private buffer (lib/tmux/capture.ts): running such a line
  // again through a spawned client after a lost connection is harmless, as for a read.
  "capture-pane": { names: ["-b", "-t"], reads: true },
  "save-buffer": { names: ["-b"], reads: true },
  "delete-buffer": { names: ["-b"], reads: true },
  "load-buffer": { names: ["-b"], reads: false },
  "paste-buffer": { names: ["-t"], reads: false },
  "send-keys": { names: ["-t"], reads: false },
  "select-pane": { names: ["-t"], reads: false },
  "select-window": { names: ["-t"], reads: false },
  "select-layout": { names: ["-t"], reads: false },
  "resize-pane": { names: ["-t"], reads: false },
  "rename-session": { names: ["-t"], reads: false },
  "rename-window": { names: ["-t"], reads: false },
  "clear-history": { names: ["-t"], reads: false },
  "set-environment": { names: ["-t", "-g"], reads: false },
};

/** The commands of a command line (`;` separates them, as in argv). */
function commandsOf(args: string[]): string[][] {
  const commands: string[][] = [[]];
  for (const arg of args) {
    if (arg === ";") commands.push([]);
    else commands.at(-1)!.push(arg);
  }
  return commands;
}

/** "read" or "write" when every command of the line may be routed, else null. */
function routing(args: string[]): "read" | "write" | null {
  let reads = true;
  for (const [name, ...rest] of commandsOf(args)) {
    const entry = ROUTED[name ?? ""];
    if (!entry || (entry.names.length && !entry.names.some((f) => rest.includes(f)))) return null;
    reads &&= entry.reads;
  }
  return reads ? "read" : "write";
}

/**
 * For the general tools: a command line made of the commands above runs through a control
 * connection to that server, opened for it when there is none; null when none can be had, and
 * the caller spawns a client. A read lost with its connection is run again that way; a write is
 * not, since it may have happened, and fails as a spawned client would when its server exits.
 */
/** Notes that `client`'s server answered a spawned client (ControlServer.markRunning). */
export function serverAnswered(client: TmuxClient): void {
  serverFor(client).markRunning();
}

export async function controlCall(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<TmuxResult | null> {
  const route = routing(args);
  if (!route || args.some((arg) => /['\n\r]/.test(arg))) return null;
  const connection = await serverFor(client).generalFor([args]);
  if (!connection) return null;
  try {
    if (route === "write") return await connection.run(args, signal);
    // A read whose answer may have lost a pane's line (control_lines.ts) is read again.
    const blocks = await connection.runLines([args], signal);
    return blocks.every((block) => block.exact) ? resultOf(blocks) : null;
  } catch (error) {
    if (signal?.aborted || !(error instanceof ControlLost)) throw error;
    return route === "read" ? null : { code: 1, stdout: "", stderr: "server exited" };
  }
}

/**
 * Several read-only command lines of one command each (routed as controlCall's), run at one
 * write through the general control connection: one answer per line, in order, `ok` false for a
 * line tmux refused. Null when no connection can be had or it ended with the lines in flight;
 * the caller then runs them one by one another way.
 */
export async function controlReads(
  client: TmuxClient,
  lines: string[][],
  signal?: AbortSignal,
): Promise<{ ok: boolean; text: string }[] | null> {
  if (lines.some((args) => routing(args) !== "read" || args.some((a) => /['\n\r]/.test(a)))) {
    return null;
  }
  const connection = await serverFor(client).generalFor(lines);
  if (!connection) return null;
  try {
    const blocks = await connection.runLines(lines, signal);
    if (blocks.length !== lines.length || blocks.some((block) => !block.exact)) return null;
    return blocks.map((block) => ({
      ok: block.ok,
      text: block.lines.map((line) => `${line}\n`).join(""),
    }));
  } catch (error) {
    if (signal?.aborted || !(error instanceof ControlLost)) throw error;
    return null;
  }
}

/**
 * One read-only command line (routed as controlCall's) through the general control connection,
 * as its answer blocks, one per command. Null when no connection can be had, or it ended with
 * the line in flight (a pane's text that forged a block end ends it): the caller reads another
 * way.
 */
export async function controlBlocks(
  client: TmuxClient,
  args: string[],
  signal?: AbortSignal,
): Promise<ControlBlock[] | null> {
  if (routing(args) !== "read" || args.some((arg) => /['\n\r]/.test(arg))) return null;
  const connection = await serverFor(client).generalFor([args]);
  if (!connection) return null;
  try {
    return await connection.runLines([args], signal);
  } catch (error) {
    if (signal?.aborted || !(error instanceof ControlLost)) throw error;
    return null;
  }
}

/**
 * Ends the control connections of the clients no MCP server made (a lab's, a test's); an MCP
 * server closes its own pool when it closes.
 */
export async function closeControlConnections(): Promise<void> {
  await UNOWNED.close();
}
