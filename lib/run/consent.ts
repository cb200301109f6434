// The kernel's word on consent. A shell and a helper each say who they are; neither is taken
// at its word. The pane's root process must hold the invitation's proof file open (only a shell
// that sourced the setup file does), and a helper must open a fresh file the server names on its
// own connection and be that shell's child: a same-user process that read the token, or claims
// a real helper's pid, cannot make another process open a file.
import { encodeFrame, type Frame, parseHelperMessage } from "./frames.ts";
import { randomHex } from "../util/ids.ts";
import { holdsFileOpen, type ProcessIdentity, readIdentity } from "../host/processes.ts";
import { runTmux, type TmuxClient } from "../tmux/tmux.ts";
import { closeQuietly } from "./channel.ts";

/** How long a helper has to open the file its challenge names. */
const HELPER_PROOF_TIMEOUT_MS = 5000;
/** How long an enrolling shell's check waits for its helper to have proved itself. */
const HELPER_HELLO_TIMEOUT_MS = 15_000;

/** A helper that proved its pid, waiting for its shell's check to claim it. */
export type ProvedHelper = {
  pid: number;
  parentPid: number;
  conn: Deno.UnixConn;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  frames: AsyncGenerator<Frame<unknown>>;
};

/** The helpers that proved themselves, by invitation token, until their shell claims one. */
export class HelperArrivals {
  #proved = new Map<string, ProvedHelper[]>();
  #arrived = new EventTarget();
  #directory: string;
  #isInvited: (token: string) => boolean;

  constructor(directory: string, isInvited: (token: string) => boolean) {
    this.#directory = directory;
    this.#isInvited = isInvited;
  }

  /**
   * A helper says which pid it is; the kernel has to agree. The server names a fresh file on
   * this connection only, the helper opens it, and /proc must show that very pid holding it
   * open.
   */
  async greet(conn: Deno.UnixConn, frames: AsyncGenerator<Frame<unknown>>): Promise<void> {
    const first = await frames.next();
    const hello = first.done ? null : parseHelperMessage(first.value.header);
    if (!hello || hello.type !== "hello" || !this.#isInvited(hello.token)) {
      return closeQuietly(conn);
    }
    const writer = conn.writable.getWriter();
    const proofPath = `${this.#directory}/proof-${randomHex(8)}`;
    let identity: ProcessIdentity | null = null;
    try {
      await Deno.writeTextFile(proofPath, "", { mode: 0o600, createNew: true });
      // The path goes as the body, raw bytes, so the helper needs no JSON string decoding.
      await writer.write(encodeFrame({ type: "prove" }, new TextEncoder().encode(proofPath)));
      const timeout = new Promise<null>((resolve) =>
        setTimeout(() => resolve(null), HELPER_PROOF_TIMEOUT_MS)
      );
      const answer = await Promise.race([frames.next(), timeout]);
      const proved = answer && !answer.done &&
        parseHelperMessage(answer.value.header)?.type === "proved";
      if (proved && await holdsFileOpen(hello.pid, proofPath)) {
        identity = await readIdentity(hello.pid);
      }
    } catch {
      identity = null;
    } finally {
      await Deno.remove(proofPath).catch(() => {});
    }
    if (!identity || !this.#isInvited(hello.token)) return closeQuietly(conn);
    const arrived = { pid: hello.pid, parentPid: identity.parentPid, conn, writer, frames };
    this.#proved.set(hello.token, [...this.#proved.get(hello.token) ?? [], arrived]);
    this.#arrived.dispatchEvent(new Event(hello.token));
  }

  /**
   * The helper started by shell `parentPid` for this invitation. A helper left over from a
   * refused attempt (a nested shell, say) has another parent and is never taken for it. Null
   * at once when `signal` aborts (the attempt was contested).
   */
  async claim(token: string, parentPid: number, signal: AbortSignal): Promise<ProvedHelper | null> {
    const take = () => {
      const helpers = this.#proved.get(token) ?? [];
      const mine = helpers.find((helper) => helper.parentPid === parentPid);
      if (mine) this.#proved.set(token, helpers.filter((helper) => helper !== mine));
      return mine ?? null;
    };
    const found = take();
    if (found) return found;
    const arrived = Promise.withResolvers<ProvedHelper | null>();
    const onHello = () => {
      const mine = take();
      if (mine) arrived.resolve(mine);
    };
    this.#arrived.addEventListener(token, onHello);
    const timer = setTimeout(() => arrived.resolve(null), HELPER_HELLO_TIMEOUT_MS);
    const onAbort = () => arrived.resolve(null);
    signal.addEventListener("abort", onAbort);
    try {
      return signal.aborted ? null : await arrived.promise;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      this.#arrived.removeEventListener(token, onHello);
    }
  }

  /** Closes the helpers left unclaimed on a withdrawn invitation. */
  drop(token: string): void {
    for (const stray of this.#proved.get(token) ?? []) closeQuietly(stray.conn);
    this.#proved.delete(token);
  }

  close(): void {
    for (const token of [...this.#proved.keys()]) this.drop(token);
  }
}

/**
 * The root process of pane `paneId` when it is alive and holds `proofPath` open, with the pid
 * of the tmux server that owns the pane; null otherwise.
 */
export async function paneRootHolding(
  tmux: TmuxClient,
  paneId: string,
  proofPath: string,
): Promise<{ root: ProcessIdentity; tmuxPid: number } | null> {
  const pane = await runTmux(tmux, [
    "display-message",
    "-p",
    "-t",
    paneId,
    "#{pane_id} #{pane_pid} #{pane_dead} #{pid}",
  ]);
  const [id, panePid, dead, tmuxPid] = pane.stdout.trim().split(" ");
  if (pane.code !== 0 || id !== paneId || dead !== "0") return null;
  const root = await readIdentity(Number(panePid));
  if (!root || !await holdsFileOpen(root.pid, proofPath)) return null;
  return { root, tmuxPid: Number(tmuxPid) };
}
