/**
 * Reading one partition log directly: the stored record batches from an offset (whole batches, as a fetch
 * serves them), their records decoded once, values through the shared codec, and undecodable records turned
 * into `decode` rejections. Waiting for more data parks on the partition's high-watermark listener.
 */
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import { isControl, isTransactional } from '../../embedded/kafka/protocol/control-batch';
import { readBatchHeader, splitBatches, type BatchHeader } from '../../embedded/kafka/protocol/record-batch';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import type { ValueCodec } from '../codec';
import type { LogRecord } from '../port';
import type { Rejection } from '../schema-types';
import type { RecordSchema } from '../schemas';
import type { DecodedBatches } from './decoded-batches';
import { brokerRefused } from './log-errors';
import { decodeStoredBatches, type StoredBatch } from './stored-batch-decoder';

/** Bytes read per partition at a time (kafkajs's and Kafka's `max.partition.fetch.bytes`); at least one batch. */
export const READ_MAX_BYTES = 1024 * 1024;

export interface ReadBatch<T> {
  readonly records: LogRecord<T>[];
  readonly rejections: Rejection[];
  /** The offset to read (and commit) next. */
  readonly next: number;
  readonly highWatermark: number;
}

/** The fetch offset is below the log start (retention) or beyond the high watermark (a truncated tail). */
export class OffsetOutOfRange extends Error {
  constructor(
    readonly log: PartitionLog,
    readonly offset: number,
  ) {
    super(`offset ${offset} is outside ${log.topic}/${log.partition} [${log.logStartOffset}, ${log.highWatermark}]`);
    this.name = 'OffsetOutOfRange';
  }
}

/**
 * Reads records at `from` and after, below `end` (exclusive; the last stable offset by default), about `maxBytes`
 * of them (at least one batch). Answers null when nothing is there yet. With `shared`, batches another reader
 * already decoded are taken from it. Reads are read_committed, as the Kafka clients' default: every `end` a caller
 * passes is a last stable offset (ReadableEnd, a replay's ends), so no read reaches an open transaction's records;
 * an aborted transaction's records and markers are skipped here.
 */
export async function readPartition<T>(
  log: PartitionLog,
  codec: ValueCodec,
  from: number,
  readerSchema: RecordSchema<T> | undefined,
  end = log.lastStableOffset,
  shared?: DecodedBatches,
  maxBytes = READ_MAX_BYTES,
): Promise<ReadBatch<T> | null> {
  const highWatermark = log.highWatermark;
  const read = await log.read(from, maxBytes, end);
  if (read.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) throw new OffsetOutOfRange(log, from);
  if (read.errorCode !== ErrorCode.NONE) throw brokerRefused(`a read of ${log.topic}/${log.partition}`, read.errorCode);
  if (!read.records) return null;

  const wanted: StoredBatch[] = [];
  const aborted = abortedSpans(log, from, end);
  let next = from;
  for (const batch of splitBatches(read.records)) {
    const h = readBatchHeader(batch);
    if (h.baseOffset >= end) break;
    const last = h.baseOffset + h.lastOffsetDelta;
    next = Math.min(end, Math.max(next, last + 1));
    if (last < from || isControl(h) || aborted(h)) continue;
    // The whole batch is decoded (not only the part at `from` and after), so other readers can share it.
    wanted.push({ batch, baseOffset: h.baseOffset, lastOffset: last, attributes: h.attributes, from, to: end });
  }
  const decoded = await decodeStoredBatches(log, codec, readerSchema, wanted, shared);
  const records: LogRecord<T>[] = [];
  const rejections: Rejection[] = [];
  const inRead = (offset: number): boolean => offset >= from && offset < end;
  for (const batch of decoded) {
    for (const r of batch.records) if (inRead(Number(r.offset))) records.push(r as LogRecord<T>);
    for (const r of batch.rejections) if (inRead(r.source?.offset ?? -1)) rejections.push(r);
  }
  return { records, rejections, next, highWatermark };
}

/** Whether a batch belongs to a transaction aborted in [from, end): read_committed readers drop its records. */
function abortedSpans(log: PartitionLog, from: number, end: number): (h: BatchHeader) => boolean {
  const spans = log.transactions.abortedBetween(from, end);
  if (spans.length === 0) return () => false;
  return (h) => isTransactional(h) && spans.some((a) => a.producerId === h.producerId && h.baseOffset >= a.firstOffset && h.baseOffset <= a.lastOffset);
}

/**
 * Resolves once the partition's readable end (`end`: the high watermark, or the committing end for a reader of
 * records under commit) passes `offset`, its topic is deleted (the caller looks the partition up again), or
 * `signal` aborts. No timers.
 */
export function waitForData(log: PartitionLog, offset: number, signal: AbortSignal, end: ReadableEnd = DURABLE_END): Promise<void> {
  if (end.of(log) > offset || log.isRetired || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      off();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const off = end.onMove(log, () => {
      if (end.of(log) > offset || log.isRetired) done();
    });
    signal.addEventListener('abort', done);
  });
}

/** Where a partition's readable records end for a reader, and what tells it that end moved. */
export interface ReadableEnd {
  of(log: PartitionLog): number;
  onMove(log: PartitionLog, listener: () => void): () => void;
}

/** Below the last stable offset: what is durable and in no open transaction, as Kafka's read_committed consumers read. */
export const DURABLE_END: ReadableEnd = { of: (log) => log.lastStableOffset, onMove: (log, listener) => log.onAdvance(listener) };

/**
 * Below the committing end: records whose group commit has started, before it ends (`readWhileCommitting`). It
 * moves when a commit starts, or with the high watermark under the fsync policies that move it at each append.
 */
export const COMMITTING_END: ReadableEnd = {
  of: (log) => log.transactions.lastStableOffset(log.committingEnd),
  onMove: (log, listener) => {
    const offStart = log.onCommitStart(listener);
    const offAdvance = log.onAdvance(listener);
    return () => {
      offStart();
      offAdvance();
    };
  },
};
