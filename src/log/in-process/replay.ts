/**
 * Replay on the broker's own partition logs: each partition read from its start point up to the last stable
 * offset (the high watermark unless a transaction is open) it had when the replay began, one batch at a time; no group, nothing committed. Undecodable
 * records are reported to `onRejected` and skipped, never published again.
 */
import type { LogManager } from '../../embedded/kafka/storage/log-manager';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import type { ValueCodec } from '../codec';
import type { PartitionOffset, ReplayOptions, ReplayResult, ReplayStart } from '../port';
import { unknownTopic } from './log-errors';
import { OffsetOutOfRange, readPartition } from './partition-reader';

export async function replay<T>(logs: LogManager, codec: ValueCodec, o: ReplayOptions<T>): Promise<ReplayResult> {
  const topic = logs.topic(o.topic);
  if (!topic) throw unknownTopic(o.topic);
  const partitions = topic.partitions;
  // read_committed: what an open transaction holds back is not there yet when the replay begins.
  const ends = partitions.map((p) => p.lastStableOffset);
  const starts = await Promise.all(partitions.map((p, i) => startOffset(p, o.from ?? { kind: 'earliest' }, ends[i]!)));
  let records = 0;
  let rejected = 0;
  for (const [i, log] of partitions.entries()) {
    const end = ends[i]!;
    let next = starts[i]!;
    while (next < end) {
      let batch;
      try {
        batch = await readPartition(log, codec, next, o.readerSchema, end);
      } catch (e) {
        // Retention deleted the start while we read: what is left begins at the new log start.
        if (e instanceof OffsetOutOfRange && next < log.logStartOffset) {
          next = log.logStartOffset;
          continue;
        }
        throw e;
      }
      if (!batch) break;
      for (const r of batch.rejections) await o.onRejected?.(r);
      if (batch.records.length > 0) {
        await o.handleBatch({
          topic: log.topic,
          partition: log.partition,
          records: batch.records,
          rejected: batch.rejections.length,
          highWatermark: String(batch.highWatermark),
        });
      }
      records += batch.records.length;
      rejected += batch.rejections.length;
      next = batch.next;
    }
  }
  const endOffsets: PartitionOffset[] = partitions.map((p, i) => ({ partition: p.partition, offset: String(ends[i]) }));
  return { records, rejected, endOffsets };
}

async function startOffset(log: PartitionLog, from: ReplayStart, end: number): Promise<number> {
  const clamp = (offset: number): number => Math.min(Math.max(offset, log.logStartOffset), end);
  switch (from.kind) {
    case 'earliest':
      return log.logStartOffset;
    case 'offsets': {
      const given = from.offsets.find((p) => p.partition === log.partition);
      return given ? clamp(Number(given.offset)) : log.logStartOffset;
    }
    case 'timestamp': {
      // -1: no record at or after the timestamp, so nothing to read in that partition.
      const found = await log.offsetForTimestamp(from.timestamp);
      return found.offset < 0 ? end : clamp(found.offset);
    }
  }
}
