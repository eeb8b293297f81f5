/**
 * A small pool of HSM sessions. A PKCS#11 session holds one operation at a time (EncryptInit … Encrypt), so
 * each call borrows a session exclusively; up to `max` calls run at once and the rest wait in FIFO order.
 * A session that failed mid-operation is discarded rather than returned, since its operation state is unknown.
 */
export interface SessionPoolOptions<S> {
  max: number;
  open: () => S;
  close: (session: S) => void;
}

type Waiter<S> = { resolve: (session: S) => void; reject: (error: unknown) => void };

export class SessionPool<S> {
  private readonly idle: S[] = [];
  private readonly waiters: Waiter<S>[] = [];
  private busy = 0;
  private closed = false;
  private drained: (() => void) | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly options: SessionPoolOptions<S>) {
    if (!Number.isInteger(options.max) || options.max < 1) throw new RangeError('session pool max must be ≥ 1');
  }

  get size(): { idle: number; busy: number; waiting: number } {
    return { idle: this.idle.length, busy: this.busy, waiting: this.waiters.length };
  }

  /** Runs `fn` with a borrowed session; `keep(error)` says whether the session survives a failure. */
  async use<T>(fn: (session: S) => Promise<T>, keep: (error: unknown) => boolean = () => false): Promise<T> {
    const session = await this.acquire();
    let result: T;
    try {
      result = await fn(session);
    } catch (error) {
      if (keep(error)) this.release(session);
      else this.discard(session);
      throw error;
    }
    this.release(session);
    return result;
  }

  acquire(): Promise<S> {
    if (this.closed) return Promise.reject(new PoolClosedError());
    const ready = this.idle.pop();
    if (ready !== undefined) {
      this.busy++;
      return Promise.resolve(ready);
    }
    if (this.busy < this.options.max) {
      this.busy++;
      try {
        return Promise.resolve(this.options.open());
      } catch (error) {
        this.busy--;
        return Promise.reject(error);
      }
    }
    return new Promise<S>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  release(session: S): void {
    const next = this.waiters.shift();
    if (next) {
      next.resolve(session); // stays busy, changes hands
      return;
    }
    this.busy--;
    if (this.closed) this.closeQuietly(session);
    else this.idle.push(session);
    this.checkDrained();
  }

  /** Closes a session instead of returning it; a waiter, if any, gets a freshly opened one. */
  discard(session: S): void {
    this.closeQuietly(session);
    this.busy--;
    const next = this.waiters.shift();
    if (next) {
      this.busy++;
      try {
        next.resolve(this.options.open());
      } catch (error) {
        this.busy--;
        next.reject(error);
      }
    }
    this.checkDrained();
  }

  /**
   * Refuses new borrowers; calls already waiting still get their turn. Resolves once every session is back
   * and closed.
   */
  close(): Promise<void> {
    if (!this.closing) {
      this.closed = true;
      this.closing = (this.busy > 0 ? new Promise<void>((resolve) => (this.drained = resolve)) : Promise.resolve()).then(() => {
        for (const session of this.idle.splice(0)) this.closeQuietly(session);
      });
    }
    return this.closing;
  }

  private checkDrained(): void {
    if (this.closed && this.busy === 0 && this.drained) {
      const done = this.drained;
      this.drained = undefined;
      done();
    }
  }

  private closeQuietly(session: S): void {
    try {
      this.options.close(session);
    } catch {
      // a session that cannot be closed is already gone
    }
  }
}

export class PoolClosedError extends Error {
  constructor() {
    super('the HSM session pool is closed');
    this.name = 'PoolClosedError';
  }
}
