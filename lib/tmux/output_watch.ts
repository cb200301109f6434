// A wait's wake-ups from a pane's `%output` through a control connection (control_servers.ts):
// while one is open a wait looks only when the pane wrote or changed, never on a timer. Without
// one (tmux before 3.7: versions.ts) it polls, but with a question, not a look: every PROBE_MS
// it asks tmux for a one-line summary of the pane (where its cursor and history stand), and
// wakes the loop to look only when that changed, or when the caller's poll interval is up.
import { runTmux, type TmuxClient } from "./tmux.ts";
import { delay } from "../util/delay.ts";
import type { ControlConnection } from "./control_connection.ts";
import { serverFor } from "./control_servers.ts";

/** While a pane keeps writing, a wait looks at it at most once per this interval... */
const BUSY_REST_MS = 25;
/**
 * ...once it has looked this many times in a row with output arriving during each look. Typing a
 * line and pressing Enter is such a short run of looks, and resting after the first of them put
 * 25 ms into a twentieth of the wake-ups (`deno task bench`: p95 18-24 ms with 1, 3.7-5.1 ms with
 * 3, the same CPU for a flood).
 */
const BUSY_LOOKS_BEFORE_REST = 3;

/** With a tmux that cannot report a pane's death (before 3.2), a wait looks this often anyway. */
const UNREPORTED_DEATH_MS = 1000;

/**
 * Without a connection, how often a wait asks whether the pane changed. One such question is a
 * spawned client and a format of a few fields, a small fraction of a look (a capture of the
 * screen and up to 10,000 history lines), so text shows up within this of being written.
 */
const PROBE_MS = 40;

/**
 * What the probe asks: anything a pane's new output moves (its cursor, its history, the
 * alternate screen, its death, its process) and its window's last activity. A row rewritten in
 * place with the cursor back where it was moves none of it: the caller's poll interval looks.
 */
const PROBE_FORMAT = "#{history_size} #{cursor_x} #{cursor_y} #{alternate_on} #{pane_dead} " +
  "#{pane_pid} #{window_activity}";

/**
 * Wakes a looking loop when a pane writes. Create it before the loop's first look and call
 * `wake` where the loop used to sleep: it returns at once if the pane wrote since the previous
 * `wake` returned (so nothing that arrived during a look is missed), at the pane's next output
 * or change (its death, its window's layout), or after `ms` (the time the loop has left). With
 * no connection it polls: it returns after `pollMs` at most. When the pane wrote
 * during a look, the next look waits as long as that one took (and at least BUSY_REST_MS once
 * the pane has kept writing for BUSY_LOOKS_BEFORE_REST looks), so a loop never spends more than
 * half its time looking.
 */
export function watchOutput(client: TmuxClient, paneId: string) {
  const server = serverFor(client);
  let attaching: Promise<ControlConnection | null> | null = null;
  let connection: ControlConnection | null = null;
  /** The connection whose count `mark` is: output is counted only from its attach on. */
  let followed: ControlConnection | null = null;
  let mark = 0;
  let returnedAt = performance.now();
  let busy = 0;
  /** The pane's summary when a poll last saw it (null: not asked yet, or tmux did not say). */
  let probed: string | null = null;
  const probe = async (signal: AbortSignal): Promise<string | null> => {
    const out = await runTmux(client, ["display-message", "-p", "-t", paneId, PROBE_FORMAT], signal)
      .catch(() => null);
    return out?.code === 0 ? out.stdout : null;
  };
  /**
   * Asked before the loop's first look when there is no connection to follow (a poll needs it),
   * so what the pane writes during that look is a change.
   */
  let firstProbe: Promise<unknown> = Promise.resolve();

  /**
   * Returns when the pane's summary differs from the last one seen, at once when it changed
   * during the look before (after resting as long as that look took, so a busy pane is looked
   * at no more than half the time), or at `until`.
   */
  const poll = async (until: number, signal: AbortSignal): Promise<void> => {
    await firstProbe;
    let first = true;
    while (true) {
      const summary = await probe(signal);
      if (signal.aborted) return;
      if (summary !== probed) {
        probed = summary;
        if (first) {
          await delay(Math.min(performance.now() - returnedAt, until - performance.now()), signal);
        }
        return;
      }
      first = false;
      const left = until - performance.now();
      if (left <= 0) return;
      await delay(Math.min(PROBE_MS, left), signal);
    }
  };

  const attach = () => {
    // A server that does not answer leaves the loop polling, whose looks then say so.
    attaching ??= server.forPane(paneId).catch(() => null).then((found) => {
      connection = found;
      if (!found && probed === null) {
        firstProbe = probe(new AbortController().signal).then((summary) => probed ??= summary);
      }
      return found;
    });
    return attaching;
  };
  attach();

  const wake = async (ms: number, signal: AbortSignal, pollMs = ms): Promise<void> => {
    const calledAt = performance.now();
    const deadline = calledAt + ms;
    try {
      if (connection?.closed) {
        connection = null;
        attaching = null;
        attach();
      }
      let live = connection;
      if (!live) {
        const settled = new AbortController();
        const polled = calledAt + Math.min(ms, pollMs);
        live = await Promise.race([
          attaching,
          delay(polled - calledAt, AbortSignal.any([signal, settled.signal])).then(() => null),
        ]);
        settled.abort();
        if (!live) return await poll(polled, signal);
      }
      if (live !== followed) {
        // A connection this loop has not followed yet (it became known during a look or a poll,
        // or another attached after one ended): what the pane wrote before then was not counted
        // against `mark`, so look again at once.
        followed = live;
        await live.watch(paneId, signal).catch(() => {});
        await live.followDeath(paneId, signal);
        mark = live.outputCount(paneId);
        return;
      }
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
        const until = live.followsDeath(paneId)
          ? deadline
          : calledAt + Math.min(ms, UNREPORTED_DEATH_MS);
        await live.nextOutput(paneId, Math.max(0, until - performance.now()), signal);
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
