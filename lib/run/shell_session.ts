// One accepted shell, for as long as it stays enrolled: its line channel (from zsh) and its
// helper's frame link, owned together and closed together when either ends, and what those two
// connections say turned into the events of the run in flight (lib/run/run_slots.ts).
import { encodeFrame, type Frame, MalformedFrame, parseHelperMessage } from "./frames.ts";
import { randomHex } from "../util/ids.ts";
import type { ProcessIdentity } from "../host/processes.ts";
import type { EnrolledShell } from "./run_slots.ts";
import type { ProvedHelper } from "./consent.ts";
import { closeQuietly } from "./channel.ts";

export type SessionParts = {
  paneId: string;
  identity: ProcessIdentity;
  tmuxServer: ProcessIdentity | null;
  /** The shell's own connection, and how to write a line on it. */
  conn: Deno.UnixConn;
  sendLine: (line: string) => Promise<void>;
  helper: ProvedHelper;
  /** Called once, when the enrollment ends, to forget the shell. */
  forget: (shell: EnrolledShell) => void;
};

/** The enrolled shell over its two connections; nothing listens until `deliverRunEvents`. */
export function openShellSession(parts: SessionParts): EnrolledShell {
  const { conn, helper } = parts;
  let discarded = false;
  const shell: EnrolledShell = {
    paneId: parts.paneId,
    identity: parts.identity,
    tmuxServer: parts.tmuxServer,
    processGeneration: randomHex(),
    enrollmentGeneration: randomHex(),
    helperPid: helper.pid,
    run: null,
    sendLine: parts.sendLine,
    sendFrame: (message, body) => helper.writer.write(encodeFrame(message, body)).catch(() => {}),
    discard: (cause = "shell") => {
      if (!discarded) {
        discarded = true;
        parts.forget(shell);
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
  return shell;
}

/**
 * Turns what an enrolled shell's two connections say into its run's events: the shell's
 * `N <run>` line is `busy`; the helper's `ready` and later frames go to the run they name, and
 * a `ready` for no run in flight (a request withdrawn after its deadline) is aborted so it
 * never runs. The end of either connection, or a malformed frame, ends the enrollment.
 */
export function deliverRunEvents(
  shell: EnrolledShell,
  lines: AsyncGenerator<string>,
  frames: AsyncGenerator<Frame<unknown>>,
): void {
  listenToShell(shell, lines);
  listenToHelper(shell, frames);
}

async function listenToShell(shell: EnrolledShell, lines: AsyncGenerator<string>): Promise<void> {
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

async function listenToHelper(
  shell: EnrolledShell,
  frames: AsyncGenerator<Frame<unknown>>,
): Promise<void> {
  try {
    for await (const frame of frames) {
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
