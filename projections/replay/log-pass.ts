/**
 * One read of a persistence topic into the shadows: every batch goes to every target's writer as it is read (each
 * keeps what its shadow needs and skips what its own checkpoint says it has), consecutive batches of a partition
 * are written in runs, progress is counted, and an abort stops the read between batches, leaving the shadows'
 * checkpoints where the last written run put them.
 */
import {
  projectedEventSchema,
  type ProjectedEvent,
  type LogRecord,
  type RecordSchemas,
  type ReplayResult,
  type ReplayStart,
  type WriteLog,
} from '../../src/log';
import type { Positions } from './checkpoints';
import type { ReplayProgress } from '../../src/replay';
import type { RunReader, ShadowWriter } from './replay-target';

/** The largest Kafka offset (int64). */
const BEYOND_ANY_END = '9223372036854775807';

/**
 * Records of one partition written together, in one transaction per target: a log batch holds a few thousand
 * records at most, and a record updated several times within a run is written once (the writers fold a run to one
 * change per record as they take it), so a history of updates costs a fraction of its events, and the larger the
 * run the smaller that fraction. A run holds one decoded event per record it touches (the newest), about 610
 * bytes of heap for a replay benchmark event, so at most about 12 MB.
 */
export const RUN_RECORDS = 20_000;

export interface LogPassOptions {
  readonly log: WriteLog;
  readonly schemas: RecordSchemas;
  readonly topic: string;
  readonly from: ReplayStart;
  readonly writers: readonly ShadowWriter[];
  /** Where each partition was assumed to start when the progress total was counted. */
  readonly assumedStart?: Positions;
  /** Records at or above a partition's limit are not applied (verify stops where the live projection is). */
  readonly limits?: Positions;
  readonly progress?: ReplayProgress;
  readonly signal?: AbortSignal;
  /**
   * Read the partitions at the same time, one replay each (with an offsets start only). Each partition's
   * batches still come in order and go to the writers, which write in transactions of their own; off inside a transaction.
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
 * Reads the topic from `from` into the writers; answers the records read and, per partition read, the end
 * offset it was read up to.
 */
export async function readIntoShadows(o: LogPassOptions): Promise<ReplayResult> {
  await Promise.all(o.writers.map((w) => w.begin()));
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
 * One replay of the topic. Outside a transaction (`parallel`) a partition's run is written while the next one is
 * read and taken, and the targets write it at the same time (each in its own transaction, with its own checkpoint);
 * the next run of the partition waits for the last one. Inside a transaction everything goes one at a time on its
 * one connection.
 */
async function readOnce(o: LogPassOptions): Promise<ReplayResult> {
  const seen = new Set<number>();
  const overlap = o.parallel === true;
  /** Records taken per partition since its last write. */
  const taken = new Map<number, number>();
  const writing = new Map<number, Promise<void>>();
  const reread: RunReader = (partition, from, end) => readRun(o, partition, from, end);
  const writeRun = async (partition: number): Promise<void> => {
    if (!taken.has(partition)) return;
    taken.delete(partition);
    if (overlap) await Promise.all(o.writers.map((w) => w.write(partition, reread)));
    else for (const w of o.writers) await w.write(partition, reread);
  };
  /** Writes the partition's run once its previous run is written (a failure of that one throws here). */
  const handOver = async (partition: number): Promise<void> => {
    await writing.get(partition);
    if (!overlap) return writeRun(partition);
    const written = writeRun(partition);
    written.catch(() => undefined); // awaited by the next hand-over or at the end
    writing.set(partition, written);
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
          const kept = records === batch.records ? batch : { ...batch, records };
          for (const w of o.writers) w.take(kept);
          const run = (taken.get(batch.partition) ?? 0) + records.length;
          taken.set(batch.partition, run);
          if (run >= RUN_RECORDS) await handOver(batch.partition);
        }
        o.progress?.advance(batch.records.length + batch.rejected, skippedBefore);
      },
    });
    for (const partition of [...taken.keys()]) await handOver(partition);
  } finally {
    // Nothing is left writing when the pass ends, whether it read everything or stopped.
    await Promise.allSettled(writing.values());
  }
  for (const written of writing.values()) await written;
  return result;
}

/** Ends a run's second read once it has the run's records. */
class RunRead extends Error {}

/** The records of `partition` in [from, end), read again (one replay of that partition alone). */
async function readRun(o: LogPassOptions, partition: number, from: bigint, end: bigint): Promise<LogRecord<ProjectedEvent>[]> {
  const partitions = await o.log.topicOffsets(o.topic);
  const offsets = partitions.map((p) => ({ partition: p.partition, offset: p.partition === partition ? from.toString() : BEYOND_ANY_END }));
  const records: LogRecord<ProjectedEvent>[] = [];
  try {
    await o.log.replay<ProjectedEvent>({
      topic: o.topic,
      from: { kind: 'offsets', offsets },
      readerSchema: projectedEventSchema(o.schemas),
      handleBatch: async (batch) => {
        for (const r of batch.records) {
          if (BigInt(r.offset) >= end) throw new RunRead();
          records.push(r);
        }
      },
    });
  } catch (error) {
    if (!(error instanceof RunRead)) throw error;
  }
  return records;
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
