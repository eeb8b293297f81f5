import type { BatchHandled } from '../src/log';

/** A partition's batch waiting for its round. */
interface Waiting<T> {
  readonly records: readonly T[];
  readonly resolve: (handled: BatchHandled) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for the pipeline. The deltas topic's partitions hand over their batches concurrently, and the
 * batches that become ready in the same turn of the event loop (one fsync of the deltas topic makes several
 * partitions' records readable at once) form one round: their deltas are decided and written together, with
 * one state read, one events publish, one state statement and one outcomes publish. Under HTTP writes a
 * partition's batch is a handful of deltas, and each of the six paid all of that on its own.
 *
 * Rounds run side by side, as the partitions did: a partition has one batch in one round at a time (the
 * subscription hands over its next batch only once this one is answered), so rounds never hold the same
 * partition, and a partition's records keep their order. A round that fails fails each of its batches, which are
 * delivered again; a round's `settled` is each of its batches'.
 */
export class BatchRounds<T> {
  private waiting: Waiting<T>[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (records: T[]) => Promise<BatchHandled>,
    private readonly maxRecords: number,
  ) {}

  handle(records: readonly T[]): Promise<BatchHandled> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ records, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        while (this.waiting.length > 0) this.startRound();
      });
    });
  }

  /** A round of the waiting batches, up to `maxRecords` records (at least one batch). */
  private startRound(): void {
    const round: Waiting<T>[] = [];
    let count = 0;
    while (this.waiting.length > 0 && (round.length === 0 || count + (this.waiting[0] as Waiting<T>).records.length <= this.maxRecords)) {
      const next = this.waiting.shift() as Waiting<T>;
      round.push(next);
      count += next.records.length;
    }
    this.run(round.flatMap((w) => w.records)).then(
      (handled) => round.forEach((w) => w.resolve(handled)),
      (error: unknown) => round.forEach((w) => w.reject(error)),
    );
  }
}
