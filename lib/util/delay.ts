// Waiting without busy loops, in one place: a pause that an abort ends early, and a bounded poll
// for the few facts that give no event (a process table, a tmux server going away, a screen in
// tests). The pause resolves on abort rather than rejecting, so a loop checks its own signal and
// says what it was doing.

/** Resolves after `ms`, or as soon as `signal` aborts. */
export function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener("abort", done);
    if (signal?.aborted) done();
  });
}

/**
 * Asks `condition` every `everyMs` until it gives a truthy value, which it returns; null once
 * `limitMs` has passed without one (the last look is at or after the limit).
 */
export async function pollUntil<T>(
  condition: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  limitMs: number,
  everyMs: number,
): Promise<T | null> {
  const end = Date.now() + limitMs;
  while (true) {
    const value = await condition();
    if (value) return value;
    if (Date.now() >= end) return null;
    await delay(everyMs);
  }
}
