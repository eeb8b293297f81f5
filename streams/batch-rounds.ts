import type { BatchHandled } from '../src/log';

/** A partition's batch waiting for its round. */
interface Waiting<T> {
  readonly records: readonly T[];
  readonly resolve: (handled: BatchHandled) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the pipeline. The deltas topic's partitions hand over their batches concurrently. A round
 * takes every batch waiting when it starts (up to `maxRecords`) and decides and writes their deltas together, so
 * it pays the state read, the appends and the state statement once for all partitions. Under HTTP writes a
 * partition's batch is a handful of deltas, and six of them paid all of that six times.
 *
 * The batches that arrive while a round runs wait for the next round, which starts as soon as it ends. Every
 * record keeps its place within its partition. A round that fails fails each of its batches, and each is
 * delivered again; a round's `settled` is every one of its batches'.
 */
export class BatchRounds<T> {
  private waiting: Waiting<T>[] = [];
  private running = false;
  private scheduled = false;

  constructor(
    private readonly run: (records: T[]) => Promise<BatchHandled>,
    private readonly maxRecords: number,
  ) {}

  handle(records: readonly T[]): Promise<BatchHandled> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ records, resolve, reject });
      this.schedule();
    });
  }

  /** Starts a round after the current turn of the event loop: batches that become ready in the same turn join it. */
  private schedule(): void {
    if (this.running || this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.startRound();
    });
  }

  private startRound(): void {
    if (this.running || this.waiting.length === 0) return;
    const round: Waiting<T>[] = [];
    let count = 0;
    while (this.waiting.length > 0 && (round.length === 0 || count + (this.waiting[0] as Waiting<T>).records.length <= this.maxRecords)) {
      const next = this.waiting.shift() as Waiting<T>;
      round.push(next);
      count += next.records.length;
    }
    this.running = true;
    this.run(round.flatMap((w) => w.records))
      .then(
        (handled) => round.forEach((w) => w.resolve(handled)),
        (error: unknown) => round.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.running = false;
        this.schedule();
      });
  }
}
