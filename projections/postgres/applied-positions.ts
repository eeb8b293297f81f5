/**
 * Read-your-writes support: knows how far the projection has applied each partition and lets a reader wait
 * for a log position. Batches applied by this process wake waiters at once; partitions another instance
 * applies are seen by polling the stored checkpoints.
 */
import { DeltabrokerError } from '../../src/errors';
import type { LogPosition } from '../../src/log';

/** Reads the stored next offset of a partition (undefined when never applied). */
export type CheckpointReader = (topic: string, partition: number) => Promise<bigint | undefined>;

/** How often a waiter re-reads the stored checkpoint when nothing was applied in this process. */
export const CHECKPOINT_POLL_MS = 200;

export class AppliedPositions {
  private readonly nextOffsets = new Map<string, bigint>();
  private readonly wakers = new Set<() => void>();
  private closed = false;

  constructor(private readonly readStored: CheckpointReader) {}

  /** Records that everything below `nextOffset` of the partition is applied, and wakes the waiters. */
  advance(topic: string, partition: number, nextOffset: bigint): void {
    const id = `${topic}/${partition}`;
    if ((this.nextOffsets.get(id) ?? -1n) >= nextOffset) return;
    this.nextOffsets.set(id, nextOffset);
    this.wakeAll();
  }

  /** The partition's applied position as this process knows it (undefined before it knew any). */
  appliedTo(topic: string, partition: number): bigint | undefined {
    return this.nextOffsets.get(`${topic}/${partition}`);
  }

  /**
   * Sets the partition's applied position even below the one known: its topic was created again, and the
   * positions counted the old one (a recovery moved the checkpoint back), or the database lost rounds.
   */
  reset(topic: string, partition: number, nextOffset: bigint): void {
    this.nextOffsets.set(`${topic}/${partition}`, nextOffset);
    this.wakeAll();
  }

  /**
   * True once the record at `position` is applied (its partition's checkpoint is past it); false on timeout or
   * close. A position may come from a caller: a malformed one is refused with DB_VALIDATION.
   */
  async waitFor(position: LogPosition, timeoutMs: number): Promise<boolean> {
    checkPosition(position);
    const target = BigInt(position.offset);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.isApplied(position, target)) return true;
      const stored = await this.readStored(position.topic, position.partition);
      if (stored !== undefined) this.advance(position.topic, position.partition, stored);
      if (this.isApplied(position, target)) return true;
      const left = deadline - Date.now();
      if (this.closed || left <= 0) return false;
      await this.sleep(Math.min(left, CHECKPOINT_POLL_MS));
    }
  }

  /** Wakes every waiter; from now on they answer false instead of waiting. */
  close(): void {
    this.closed = true;
    this.wakeAll();
  }

  private isApplied(position: LogPosition, target: bigint): boolean {
    return (this.nextOffsets.get(`${position.topic}/${position.partition}`) ?? -1n) > target;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  private wakeAll(): void {
    for (const wake of [...this.wakers]) wake();
  }
}

const OFFSET = /^[0-9]{1,19}$/;

function checkPosition(position: LogPosition): void {
  const refuse = (field: string, message: string): never => {
    throw new DeltabrokerError('DB_VALIDATION', message, { field, rule: 'log-position', stage: 'read' });
  };
  if (typeof position.topic !== 'string' || position.topic === '') refuse('position.topic', 'a log position needs a topic');
  if (!Number.isSafeInteger(position.partition) || position.partition < 0) refuse('position.partition', 'a log position needs a partition number (0 or more)');
  if (typeof position.offset !== 'string' || !OFFSET.test(position.offset)) refuse('position.offset', 'a log position needs a decimal offset');
}
