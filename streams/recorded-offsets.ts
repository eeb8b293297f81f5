import type { StateCheckpoint } from '../src/store/record-states/port';

interface Tracked {
  /** Every event below this offset has its state recorded. */
  next: bigint;
  /** Recorded offsets at or above `next` (batches of concurrent partitions commit out of offset order). */
  above: Set<bigint>;
  /** The checkpoint last stored. */
  stored: bigint;
}

/** Beyond this many recorded offsets waiting for a gap to close, a partition is no longer tracked. */
const MAX_WAITING = 100_000;

/**
 * Which persistence-topic offsets have their state recorded, so the state checkpoint can move forward while the
 * pipeline runs and start-up only reads what was written after it (instead of everything since the previous
 * start). The pipeline handles deltas partitions concurrently, so the events of one persistence partition are
 * recorded out of offset order: the checkpoint is the contiguous high-water mark, never past an offset whose
 * state is not stored yet. Offsets the pipeline does not record here (another instance's events, an event
 * published by a batch that failed before its states were stored) leave a gap that holds the checkpoint back:
 * safe, the catch-up then reads a little more.
 */
export class RecordedOffsets {
  readonly #partitions = new Map<string, Tracked & { topic: string; partition: number }>();

  /** Starts tracking a partition whose states are recorded up to `next` (exclusive). */
  start(topic: string, partition: number, next: bigint): void {
    this.#partitions.set(keyOf(topic, partition), { topic, partition, next, above: new Set(), stored: next });
  }

  /** Marks the events at these positions as recorded (their transaction committed). */
  recorded(positions: readonly { topic: string; partition: number; offset: string }[]): void {
    for (const p of positions) {
      const key = keyOf(p.topic, p.partition);
      const tracked = this.#partitions.get(key);
      if (!tracked) continue;
      const offset = BigInt(p.offset);
      if (offset < tracked.next) continue;
      tracked.above.add(offset);
      while (tracked.above.delete(tracked.next)) tracked.next += 1n;
      if (tracked.above.size > MAX_WAITING) this.#partitions.delete(key);
    }
  }

  /** Checkpoints that moved since they were last stored; store them, then call `stored`. */
  due(): StateCheckpoint[] {
    return [...this.#partitions.values()]
      .filter((t) => t.next > t.stored)
      .map((t) => ({ topic: t.topic, partition: t.partition, nextOffset: t.next.toString() }));
  }

  stored(checkpoints: readonly StateCheckpoint[]): void {
    for (const c of checkpoints) {
      const tracked = this.#partitions.get(keyOf(c.topic, c.partition));
      if (tracked && BigInt(c.nextOffset) > tracked.stored) tracked.stored = BigInt(c.nextOffset);
    }
  }
}

const keyOf = (topic: string, partition: number): string => `${topic}\u0000${partition}`;
