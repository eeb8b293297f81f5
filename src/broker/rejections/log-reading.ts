/**
 * Reading the pipeline's topics back through the write-log port: the rejections (newest first, filtered) and
 * the original records a rejection points at. Nothing is committed and no group is left behind.
 */
import type { LogRecord, RecordSchema, RecordSchemas, Rejection, WriteLog } from '../../log';
import { PIPELINE_TOPICS } from '../../log/topology';
import { matchesFilter, type RejectionFilter } from './rejection-filter';

/** A rejection's record timestamp is the publishing instance's clock; instances' clocks may differ this much. */
const CLOCK_SKEW_MS = 60_000;

/**
 * The rejections matching `filter`, newest first. A delta refused twice (its batch was redelivered after a
 * crash before its verdict was stored) is listed once, with its newest rejection.
 */
export async function readRejections(log: WriteLog, schemas: RecordSchemas, filter: RejectionFilter): Promise<Rejection[]> {
  const byDelta = new Map<string, Rejection>();
  await log.replay<Rejection>({
    topic: PIPELINE_TOPICS.rejections,
    readerSchema: schemas.Rejection,
    from: filter.since === undefined ? { kind: 'earliest' } : { kind: 'timestamp', timestamp: filter.since - CLOCK_SKEW_MS },
    handleBatch: async (batch) => {
      for (const { value } of batch.records) {
        if (!matchesFilter(value, filter)) continue;
        const key = value.deltaId === null ? `rejection:${value.id}` : `delta:${value.tenant ?? ''}/${value.deltaId}`;
        const known = byDelta.get(key);
        if (known === undefined || known.rejectedAt <= value.rejectedAt) byDelta.set(key, value);
      }
    },
  });
  return [...byDelta.values()].sort((a, b) => b.rejectedAt - a.rejectedAt || (a.id < b.id ? -1 : 1));
}

export interface Position {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

export const positionKey = (p: Position): string => `${p.topic}/${p.partition}/${p.offset}`;

/** Thrown from a replay's handler once every wanted record was seen: the replay stops there. */
const ALL_SEEN = new Error('all wanted records seen');

/**
 * The records at these positions, by positionKey. Each topic is read once, per partition from the first
 * wanted offset to the last; a position no longer in the log (retention) or holding undecodable bytes is absent.
 */
export async function readRecordsAt<T>(log: WriteLog, schema: RecordSchema<T>, positions: readonly Position[]): Promise<Map<string, LogRecord<T>>> {
  const found = new Map<string, LogRecord<T>>();
  const wanted = new Set(positions.map(positionKey));
  for (const topic of new Set(positions.map((p) => p.topic))) {
    const first = new Map<number, bigint>();
    const last = new Map<number, bigint>();
    for (const p of positions.filter((q) => q.topic === topic)) {
      const offset = BigInt(p.offset);
      if (offset < (first.get(p.partition) ?? offset + 1n)) first.set(p.partition, offset);
      if (offset > (last.get(p.partition) ?? -1n)) last.set(p.partition, offset);
    }
    const offsets = await log.topicOffsets(topic);
    const open = new Set(first.keys());
    try {
      await log.replay<T>({
        topic,
        readerSchema: schema,
        from: { kind: 'offsets', offsets: offsets.map((p) => ({ partition: p.partition, offset: String(first.get(p.partition) ?? p.high) })) },
        handleBatch: async (batch) => {
          for (const record of batch.records) {
            const key = positionKey(record);
            if (wanted.has(key)) found.set(key, record);
            if (BigInt(record.offset) >= (last.get(record.partition) ?? -1n)) open.delete(record.partition);
          }
          if (open.size === 0) throw ALL_SEEN;
        },
      });
    } catch (error) {
      if (error !== ALL_SEEN) throw error;
    }
  }
  return found;
}
