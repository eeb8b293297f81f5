/**
 * One read of a persistence topic into the shadows: consecutive batches of a partition are gathered into runs,
 * every run goes to every target's applier (each skips what its own checkpoint says it has), progress is
 * counted, and an abort stops the read between batches, leaving the shadows' checkpoints where the last
 * applied run put them.
 */
import {
  projectedEventSchema,
  type ProjectedEvent,
  type LogRecord,
  type RecordBatch,
  type RecordSchemas,
  type ReplayResult,
  type ReplayStart,
  type WriteLog,
} from '../../src/log';
import type { Positions } from './checkpoints';
import type { ReplayProgress } from '../../src/replay';

/** The largest Kafka offset (int64). */
const BEYOND_ANY_END = '9223372036854775807';

/**
 * Records of one partition applied together, in one transaction per target: a log batch holds a few thousand
 * records at most, and a record updated several times within a run is written once (the projections fold a
 * batch to one change per record), so a history of updates costs a fraction of its events, and the larger the
 * run the smaller that fraction. A decoded record of the replay benchmark's events holds about 610 bytes of heap
 * (870 with every field decoded), so a run about 12 MB; larger payloads take more.
 */
export const RUN_RECORDS = 20_000;

export type BatchApplier = (batch: RecordBatch<ProjectedEvent>) => Promise<void>;

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
  /**
   * Read the partitions at the same time, one replay each (with an offsets start only). Each partition's
   * batches still come in order and go to the appliers in their own transactions; off inside a transaction.
   */
  readonly parallel?: boolean;
}

/**
 * Partitions read at the same time. Each holds a run being applied and the next being gathered (about 80 MB at
 * `RUN_RECORDS`), so a topic of many partitions must not read them all at once. Two keep the service's thread
 * and PostgreSQL busy on two cores; measured against 4 partitions with runs of 10,000 (the same memory), 2 with
 * runs of 20,000 replayed histories of updates in 28-40 % less time and one of creates only in 8-12 % more.
 */
export const PARTITIONS_AT_ONCE = 2;

/**
 * Reads the topic from `from` into the appliers; answers the records read and, per partition read, the end
 * offset it was read up to.
 */
export async function readIntoShadows(o: LogPassOptions): Promise<ReplayResult> {
  if (!o.parallel || o.from.kind !== 'offsets') return readOnce(o);
  const starts = new Map(o.from.offsets.map((p) => [p.partition, BigInt(p.offset)]));
  const partitions = await o.log.topicOffsets(o.topic);
  const busy = partitions.filter((p) => (starts.get(p.partition) ?? BigInt(p.low)) < BigInt(p.high));
  if (busy.length <= 1) return readOnce(o);
  // Each replay reads one partition: every other one starts beyond any end offset (the log clamps it to the end
  // it sees when it starts; an end taken here could be behind that, and two readers of one partition would make
  // the later batches look applied). The first failure stops the rest, and no partition starts after it.
  const stop = new AbortController();
  const signal = o.signal ? AbortSignal.any([o.signal, stop.signal]) : stop.signal;
  const readPartition = (mine: (typeof busy)[number]): Promise<ReplayResult> => {
    const offsets = partitions.map((p) => ({
      partition: p.partition,
      offset: p.partition === mine.partition ? (starts.get(p.partition) ?? BigInt(p.low)).toString() : BEYOND_ANY_END,
    }));
    return readOnce({ ...o, from: { kind: 'offsets', offsets }, signal }).then((result) => ({
      ...result,
      endOffsets: result.endOffsets.filter((e) => e.partition === mine.partition),
    }));
  };
  const waiting = [...busy];
  const results: ReplayResult[] = [];
  const reader = async (): Promise<void> => {
    for (let next = waiting.shift(); next !== undefined && !signal.aborted; next = waiting.shift()) {
      try {
        results.push(await readPartition(next));
      } catch (error) {
        stop.abort();
        throw error;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: Math.min(PARTITIONS_AT_ONCE, busy.length) }, reader));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw o.signal?.aborted ? (o.signal.reason as unknown) : failed.reason;
  o.signal?.throwIfAborted();
  return {
    records: results.reduce((n, r) => n + r.records, 0),
    rejected: results.reduce((n, r) => n + r.rejected, 0),
    endOffsets: results.flatMap((r) => r.endOffsets),
  };
}

/**
 * One replay of the topic. Outside a transaction (`parallel`) a partition's full run is handed to the targets
 * while the next run is read and decoded, and the targets apply it at the same time (each in its own
 * transaction, with its own checkpoint); the next run of the partition waits for the last one. Inside a
 * transaction everything goes one at a time on its one connection.
 */
async function readOnce(o: LogPassOptions): Promise<ReplayResult> {
  const seen = new Set<number>();
  const overlap = o.parallel === true;
  const runs = new Map<number, { batch: RecordBatch<ProjectedEvent>; records: LogRecord<ProjectedEvent>[]; rejected: number }>();
  const applying = new Map<number, Promise<void>>();
  const applyRun = async (partition: number): Promise<void> => {
    const run = runs.get(partition);
    if (run === undefined) return;
    runs.delete(partition);
    const batch = { ...run.batch, records: run.records, rejected: run.rejected };
    if (overlap) await Promise.all(o.appliers.map((apply) => apply(batch)));
    else for (const apply of o.appliers) await apply(batch);
  };
  /** Hands the partition's gathered run over once its previous run is applied (a failure of that one throws here). */
  const handOver = async (partition: number): Promise<void> => {
    await applying.get(partition);
    if (!overlap) return applyRun(partition);
    const applied = applyRun(partition);
    applied.catch(() => undefined); // awaited by the next hand-over or at the end
    applying.set(partition, applied);
  };
  let result: ReplayResult;
  try {
    result = await o.log.replay<ProjectedEvent>({
      topic: o.topic,
      from: o.from,
      readerSchema: projectedEventSchema(o.schemas),
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
          const run = runs.get(batch.partition);
          if (run === undefined) runs.set(batch.partition, { batch, records: [...records], rejected: batch.rejected });
          else {
            run.batch = batch;
            run.rejected += batch.rejected;
            for (const r of records) run.records.push(r);
          }
          if ((runs.get(batch.partition)?.records.length ?? 0) >= RUN_RECORDS) await handOver(batch.partition);
        }
        o.progress?.advance(batch.records.length + batch.rejected, skippedBefore);
      },
    });
    for (const partition of [...runs.keys()]) await handOver(partition);
  } finally {
    // Nothing is left applying when the pass ends, whether it read everything or stopped.
    await Promise.allSettled(applying.values());
  }
  for (const applied of applying.values()) await applied;
  return result;
}

/** Per partition, the smallest position among several targets' checkpoints. */
export function lowest(all: readonly Positions[]): Positions {
  const out: Positions = new Map();
  for (const positions of all)
    for (const [p, next] of positions) out.set(p, out.has(p) ? (next < (out.get(p) as bigint) ? next : (out.get(p) as bigint)) : next);
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
export const asOffsets = (positions: Positions): ReplayStart => ({
  kind: 'offsets',
  offsets: [...positions].map(([partition, next]) => ({ partition, offset: next.toString() })),
});
