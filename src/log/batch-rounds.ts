/** An item waiting for its round. */
interface Waiting<I, O> {
  readonly item: I;
  readonly resolve: (out: O) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit for a subscription's handler. The partitions of a subscription hand over their batches
 * concurrently, and the batches that become ready in the same turn of the event loop (one fsync makes several
 * partitions readable at once) form one round, handled together by `run` at the cost of one (a state read, a
 * transaction, a publish) instead of one per partition: under many small writes, each partition's batch is a
 * handful of records, and each paid all of that on its own.
 *
 * Rounds run side by side, as the partitions did: a partition has one batch in one round at a time (a
 * subscription hands over a partition's next batch only once this one is answered), so a partition's records
 * keep their order. `run` answers one result per item, in order; a round that fails fails each of its items,
 * which are delivered again.
 */
export class BatchRounds<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    /** A round takes items up to this total size (at least one item). */
    private readonly maxSize: number,
    private readonly sizeOf: (item: I) => number,
  ) {}

  handle(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        while (this.waiting.length > 0) this.startRound();
      });
    });
  }

  private startRound(): void {
    const round: Waiting<I, O>[] = [];
    let size = 0;
    while (this.waiting.length > 0 && (round.length === 0 || size + this.sizeOf((this.waiting[0] as Waiting<I, O>).item) <= this.maxSize)) {
      const next = this.waiting.shift() as Waiting<I, O>;
      round.push(next);
      size += this.sizeOf(next.item);
    }
    this.run(round.map((w) => w.item)).then(
      (outs) => round.forEach((w, i) => w.resolve(outs[i] as O)),
      (error: unknown) => round.forEach((w) => w.reject(error)),
    );
  }
}
