/**
 * One partition's offset commits, in order, for handlers that answer `settled` (port.ts, BatchHandled): the
 * partition reads on while a batch finishes its work, and each offset is committed only once its batch and
 * every batch before it settled. After a failure nothing later is committed, so those batches come again.
 */
export class OrderedCommits {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private broken = false;

  /** Whether a batch is still settling: a batch after it must queue its commit behind it. */
  get busy(): boolean {
    return this.waiting > 0;
  }

  /**
   * Runs `commit` once `settled` and every earlier queued batch are done. `failed` is told (once) when a
   * batch's work rejected or its commit was refused; nothing queued after that commits.
   */
  queue(settled: Promise<void> | undefined, commit: () => boolean, failed: (error?: unknown) => void): void {
    this.waiting++;
    // Observed at once: a rejection must not go unhandled while earlier batches are still settling.
    const outcome = settled?.then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    this.tail = this.tail.then(async () => {
      try {
        if (this.broken) return;
        const failure = await outcome;
        if (failure) {
          this.broken = true;
          failed(failure.error);
          return;
        }
        if (!commit()) {
          this.broken = true;
          failed();
        }
      } finally {
        this.waiting--;
      }
    });
  }

  /** Resolves once every queued commit ran (or was skipped after a failure). */
  drained(): Promise<void> {
    return this.tail;
  }
}
