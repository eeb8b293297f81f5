/**
 * Rounds of fewer events than these linger (`projections.lingerMs`, `actions.lingerMs`); larger ones are a backlog,
 * handled at once. Here, beside BatchRounds, so the settings' descriptions (config.ts) state the sizes the code uses.
 */
export const LINGER_BELOW_EVENTS = { projectors: 1000, actionEmitters: 1000 } as const;

/** An item waiting for its round. */
interface Waiting<I, O> {
  readonly item: I;
  readonly size: number;
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
 *
 * With `linger`, a round smaller than `linger.size` that follows another such round waits up to `linger.ms` after its
 * first item for more (Kafka's `linger.ms` and `batch.size`, on the consuming side): under a trickle of writes each
 * round is otherwise one record, and pays the whole fixed cost of a round (a transaction, its markers and fsyncs, a
 * checkpoint) for it. A round that reaches the size starts at once, and so does the first small round after a large
 * one, so neither a backlog nor the tail of one waits. A linger of 0 ms is none.
 */
export class BatchRounds<I, O> {
  private waiting: Waiting<I, O>[] = [];
  private waitingSize = 0;
  private scheduled = false;
  private lingering: NodeJS.Timeout | undefined;
  private lastRoundSize = Number.POSITIVE_INFINITY;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    /** A round takes items up to this total size (at least one item). */
    private readonly maxSize: number,
    private readonly sizeOf: (item: I) => number,
    private readonly linger?: { readonly ms: number; readonly size: number },
  ) {}

  handle(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      const size = this.sizeOf(item);
      this.waiting.push({ item, size, resolve, reject });
      this.waitingSize += size;
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        const linger = this.lingerNow();
        if (linger) this.lingering ??= setTimeout(() => this.startRounds(), linger.ms);
        else this.startRounds();
      });
    });
  }

  /** The linger, when the waiting items and the round before are both smaller than its size. */
  private lingerNow(): { readonly ms: number } | undefined {
    const { linger } = this;
    return linger && linger.ms > 0 && this.waitingSize < linger.size && this.lastRoundSize < linger.size ? linger : undefined;
  }

  private startRounds(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    while (this.waiting.length > 0) this.startRound();
  }

  private startRound(): void {
    const round: Waiting<I, O>[] = [];
    let size = 0;
    while (this.waiting.length > 0 && (round.length === 0 || size + (this.waiting[0] as Waiting<I, O>).size <= this.maxSize)) {
      const next = this.waiting.shift() as Waiting<I, O>;
      round.push(next);
      size += next.size;
    }
    this.waitingSize -= size;
    this.lastRoundSize = size;
    this.run(round.map((w) => w.item)).then(
      (outs) => round.forEach((w, i) => w.resolve(outs[i] as O)),
      (error: unknown) => round.forEach((w) => w.reject(error)),
    );
  }
}
