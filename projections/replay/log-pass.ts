/**
 * One read of a persistence topic into the shadows: every batch goes to every target's applier (each skips
 * what its own checkpoint says it has), progress is counted, and an abort stops the read between batches,
 * leaving the shadows' checkpoints where the last applied batch put them.
 */
import type { EntityEvent, RecordBatch, RecordSchemas, ReplayResult, ReplayStart, WriteLog } from '../../src/log';
import type { Positions } from './checkpoints';
import type { ReplayProgress } from './progress';

export type BatchApplier = (batch: RecordBatch<EntityEvent>) => Promise<void>;

export interface LogPassOptions {
  readonly log: WriteLog;
  readonly schemas: RecordSchemas;
  readonly topic: string;
  readonly from: ReplayStart;
  readonly appliers: readonly BatchApplier[];
  /** Where each partition was assumed to start when the progress total was counted. */
  readonly assumedStart?: Positions;
  /** Records at or above a partition's limit are not applied (verify stops where the live projection is). */
  readonly limits?: Positions;
  readonly progress?: ReplayProgress;
  readonly signal?: AbortSignal;
}

export async function readIntoShadows(o: LogPassOptions): Promise<ReplayResult> {
  const seen = new Set<number>();
  return o.log.replay<EntityEvent>({
    topic: o.topic,
    from: o.from,
    readerSchema: o.schemas.EntityEvent,
    handleBatch: async (batch) => {
      o.signal?.throwIfAborted();
      const first = batch.records[0];
      let skippedBefore = 0;
      if (first !== undefined && !seen.has(batch.partition)) {
        seen.add(batch.partition);
        const assumed = o.assumedStart?.get(batch.partition);
        if (assumed !== undefined && BigInt(first.offset) > assumed) skippedBefore = Number(BigInt(first.offset) - assumed);
      }
      const limit = o.limits?.get(batch.partition);
      const records = limit === undefined ? batch.records : batch.records.filter((r) => BigInt(r.offset) < limit);
      if (records.length > 0) {
        const applied = { ...batch, records };
        for (const apply of o.appliers) await apply(applied);
      }
      o.progress?.advance(batch.records.length + batch.rejected, skippedBefore);
    },
  });
}

/** Per partition, the smallest position among several targets' checkpoints. */
export function lowest(all: readonly Positions[]): Positions {
  const out: Positions = new Map();
  for (const positions of all) for (const [p, next] of positions) out.set(p, out.has(p) ? (next < (out.get(p) as bigint) ? next : (out.get(p) as bigint)) : next);
  return out;
}

/** Events between `from` and `to` (per partition; partitions missing from `from` count from 0). */
export function eventsBetween(from: Positions, to: Positions): number {
  let n = 0n;
  for (const [p, end] of to) {
    const start = from.get(p) ?? 0n;
    if (end > start) n += end - start;
  }
  return Number(n);
}

/** A replay start at these positions. */
export const asOffsets = (positions: Positions): ReplayStart => ({ kind: 'offsets', offsets: [...positions].map(([partition, next]) => ({ partition, offset: next.toString() })) });
