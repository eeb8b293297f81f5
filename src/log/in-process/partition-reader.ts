/**
 * Reading one partition log directly: the stored record batches from an offset (whole batches, as a fetch
 * serves them), their records decoded once, values through the shared codec, and undecodable records turned
 * into `decode` rejections. Waiting for more data parks on the partition's high-watermark listener.
 */
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import { decodeRecords, readBatchHeader, splitBatches } from '../../embedded/kafka/protocol/record-batch';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import { decodeRawRecords, decodeRejection, type RawRecord, type ValueCodec } from '../codec';
import type { Headers, LogRecord } from '../port';
import { DECODE_REASONS } from '../rejection-reasons';
import type { Rejection } from '../schema-types';
import type { RecordSchema } from '../schemas';
import type { DecodedBatches, DecodedStoredBatch } from './decoded-batches';
import { brokerRefused } from './log-errors';

/** Bytes read per partition at a time (kafkajs's and Kafka's `max.partition.fetch.bytes`); at least one batch. */
export const READ_MAX_BYTES = 1024 * 1024;

/** Control batches (transaction markers) carry no records for consumers. */
const CONTROL_BATCH = 0x20;

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
 * Reads records at `from` and after, below `end` (exclusive; the high watermark by default), about `maxBytes` of
 * them (at least one batch). Answers null when nothing is there yet. With `shared`, batches another reader
 * already decoded are taken from it.
 */
export async function readPartition<T>(
  log: PartitionLog,
  codec: ValueCodec,
  from: number,
  readerSchema: RecordSchema<T> | undefined,
  end = log.highWatermark,
  shared?: DecodedBatches,
  maxBytes = READ_MAX_BYTES,
): Promise<ReadBatch<T> | null> {
  const highWatermark = log.highWatermark;
  const read = await log.read(from, maxBytes);
  if (read.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) throw new OffsetOutOfRange(log, from);
  if (read.errorCode !== ErrorCode.NONE) throw brokerRefused(`a read of ${log.topic}/${log.partition}`, read.errorCode);
  if (!read.records) return null;

  const unreadable: Rejection[] = [];
  /** Per batch in the read, in order: its decoded records, or (a miss) its raw records still to decode. */
  const parts: { base: number; last: number; decoded?: DecodedStoredBatch; raws?: RawRecord[] }[] = [];
  let next = from;
  for (const batch of splitBatches(read.records)) {
    const h = readBatchHeader(batch);
    if (h.baseOffset >= end) break;
    const last = h.baseOffset + h.lastOffsetDelta;
    next = Math.min(end, Math.max(next, last + 1));
    if (last < from || (h.attributes & CONTROL_BATCH) !== 0) continue;
    const cached = shared?.get(log, readerSchema, h.baseOffset, last);
    if (cached) {
      parts.push({ base: h.baseOffset, last, decoded: cached });
      continue;
    }
    let decoded: ReturnType<typeof decodeRecords>;
    try {
      decoded = decodeRecords(batch);
    } catch {
      decoded = null;
    }
    if (!decoded) {
      const message = `${DECODE_REASONS.DECODE_UNREADABLE_BATCH} (attributes ${h.attributes})`;
      for (let offset = Math.max(from, h.baseOffset); offset <= last && offset < end; offset++) {
        unreadable.push(decodeRejection(log.topic, log.partition, offset, null, 'DECODE_UNREADABLE_BATCH', message, null));
      }
      continue;
    }
    // The whole batch is decoded (not only the part at `from` and after), so other readers can share it.
    const raws = decoded.map((r) => ({
      offset: String(r.offset),
      key: r.key === null ? null : r.key.toString('utf8'),
      value: r.value,
      headers: headersOf(r.headers),
      timestamp: r.timestamp,
    }));
    parts.push({ base: h.baseOffset, last, raws });
  }
  await decodeMisses(log, codec, readerSchema, parts, shared);
  const records: LogRecord<T>[] = [];
  const rejections: Rejection[] = [...unreadable];
  const wanted = (offset: number): boolean => offset >= from && offset < end;
  for (const part of parts) {
    const decoded = part.decoded as DecodedStoredBatch;
    for (const r of decoded.records) if (wanted(Number(r.offset))) records.push(r as LogRecord<T>);
    for (const r of decoded.rejections) if (wanted(r.source?.offset ?? -1)) rejections.push(r);
  }
  return { records, rejections: unreadable.length > 0 ? rejections.sort(byOffset) : rejections, next, highWatermark };
}

/** Decodes the values of every batch the shared cache did not hold, in one pass, and offers them to it. */
async function decodeMisses(
  log: PartitionLog,
  codec: ValueCodec,
  readerSchema: RecordSchema | undefined,
  parts: { base: number; last: number; decoded?: DecodedStoredBatch; raws?: RawRecord[] }[],
  shared: DecodedBatches | undefined,
): Promise<void> {
  const misses = parts.filter((p) => p.raws !== undefined);
  if (misses.length === 0) return;
  const all = await decodeRawRecords(
    codec,
    log.topic,
    log.partition,
    misses.flatMap((p) => p.raws ?? []),
    readerSchema,
  );
  // Both lists are in offset order, as the batches are: each batch takes the run of entries up to its last offset.
  let r = 0;
  let j = 0;
  for (const part of misses) {
    const records: LogRecord<unknown>[] = [];
    const rejections: Rejection[] = [];
    while (r < all.records.length && Number(all.records[r]!.offset) <= part.last) records.push(all.records[r++]!);
    while (j < all.rejections.length && (all.rejections[j]!.source?.offset ?? -1) <= part.last) rejections.push(all.rejections[j++]!);
    part.decoded = { lastOffset: part.last, records, rejections };
    // A batch with undecodable records is not shared: each group reports its own rejections, as before.
    if (rejections.length === 0) shared?.put(log, readerSchema, part.base, part.decoded);
  }
}

const byOffset = (a: Rejection, b: Rejection): number => (a.source?.offset ?? 0) - (b.source?.offset ?? 0);

/** Record headers as text; a repeated name keeps its last value, as the kafkajs adapter does. */
function headersOf(headers: readonly { key: string; value: Buffer | null }[]): Headers {
  if (headers.length === 0) return EMPTY_HEADERS;
  const out: Record<string, string> = {};
  for (const h of headers) if (h.value !== null) out[h.key] = h.value.toString('utf8');
  return out;
}

const EMPTY_HEADERS: Headers = Object.freeze({});

/**
 * Resolves once the partition's high watermark passes `offset`, its topic is deleted (the caller looks the
 * partition up again), or `signal` aborts. No timers.
 */
export function waitForData(log: PartitionLog, offset: number, signal: AbortSignal): Promise<void> {
  if (log.highWatermark > offset || log.isRetired || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      off();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const off = log.onAdvance(() => {
      if (log.highWatermark > offset || log.isRetired) done();
    });
    signal.addEventListener('abort', done);
  });
}
