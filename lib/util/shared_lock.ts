// A lock many holders share and one holder can have alone (a readers–writer lock): the shared
// side runs freely alongside itself, the exclusive side waits until no one shares and keeps new
// sharers waiting until it is done. A waiting exclusive holder goes before sharers that come
// after it, so a steady stream of sharers cannot keep it out; when it is done, every sharer that
// waited goes before the next exclusive holder. A sharer may give up waiting (its signal
// aborts); an exclusive holder is bounded by its caller.

/** Gives the lock back; calling it again does nothing. */
export type Release = () => void;

type Waiter = { grant: () => void };

export class SharedLock {
  private sharers = 0;
  private exclusive = false;
  private readonly waitingShared: Waiter[] = [];
  private readonly waitingExclusive: Waiter[] = [];

  /** True while nobody holds or waits for the lock. */
  get idle(): boolean {
    return this.sharers === 0 && !this.exclusive && this.waitingShared.length === 0 &&
      this.waitingExclusive.length === 0;
  }

  /** Shares the lock; rejects with the signal's reason if it aborts before the lock is had. */
  shared(signal?: AbortSignal): Promise<Release> {
    signal?.throwIfAborted();
    if (!this.exclusive && this.waitingExclusive.length === 0) {
      this.sharers++;
      return Promise.resolve(this.once(() => this.releaseShared()));
    }
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", abort);
          resolve(this.once(() => this.releaseShared()));
        },
      };
      const abort = () => {
        const at = this.waitingShared.indexOf(waiter);
        if (at >= 0) this.waitingShared.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", abort, { once: true });
      this.waitingShared.push(waiter);
    });
  }

  /** Has the lock alone, once every sharer before it has released. */
  alone(): Promise<Release> {
    if (!this.exclusive && this.sharers === 0) {
      this.exclusive = true;
      return Promise.resolve(this.once(() => this.releaseExclusive()));
    }
    return new Promise<Release>((resolve) => {
      this.waitingExclusive.push({
        grant: () => resolve(this.once(() => this.releaseExclusive())),
      });
    });
  }

  private releaseShared(): void {
    this.sharers--;
    if (this.sharers === 0) this.grantExclusive();
  }

  private releaseExclusive(): void {
    this.exclusive = false;
    if (this.waitingShared.length > 0) {
      const granted = this.waitingShared.splice(0);
      this.sharers += granted.length;
      for (const waiter of granted) waiter.grant();
    } else {
      this.grantExclusive();
    }
  }

  private grantExclusive(): void {
    const next = this.waitingExclusive.shift();
    if (!next) return;
    this.exclusive = true;
    next.grant();
  }

  private once(release: () => void): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }
}
