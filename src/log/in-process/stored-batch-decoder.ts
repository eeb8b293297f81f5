/**
 * A stored record batch straight to the records a subscriber gets: the record framing walked in place
 * (RecordCursor), keys and header values read as text from the batch's bytes, values decoded by the shared codec
 * where they lie. No object per record besides the record itself (before, a decoded record, a raw record, a framed
 * view and a decode result were built for each, a sixth of a burst's allocations). Bad bytes become `decode`
 * rejections, as the kafkajs adapter reports them.
 */
import { RecordCursor } from '../../embedded/kafka/protocol/batch-records';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import { decodeRejection, schemaIdAt, type ValueCodec, type WriterLookup } from '../codec';
import type { Headers, LogRecord } from '../port';
import { DECODE_REASONS } from '../rejection-reasons';
import type { Rejection } from '../schema-types';
import type { RecordSchema } from '../schemas';
import type { DecodedBatches, DecodedStoredBatch } from './decoded-batches';

/** One stored batch to decode: its bytes, the offsets it holds, and those the read wants (from, to exclusive). */
export interface StoredBatch {
  readonly batch: Buffer;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly attributes: number;
  readonly from: number;
  readonly to: number;
}

const NO_FAILURES: ReadonlyMap<number, WriterLookup> = new Map();

/**
 * Decodes `batches` of `log` with `readerSchema`, taking those another reader already decoded from `shared` and
 * offering it the ones decoded here. Writer schemas not known yet are fetched once, together, and the read
 * decoded again.
 */
export async function decodeStoredBatches(
  log: PartitionLog,
  codec: ValueCodec,
  readerSchema: RecordSchema | undefined,
  batches: readonly StoredBatch[],
  shared: DecodedBatches | undefined,
): Promise<DecodedStoredBatch[]> {
  // A batch taken from `shared` is kept for the second pass: taking one counts this reader as served, so taking
  // it again would count it twice. One not there yet is looked for again after the await: another reader may
  // have decoded it meanwhile.
  const taken: (DecodedStoredBatch | undefined)[] = [];
  let failed = NO_FAILURES;
  for (;;) {
    const unknown = new Set<number>();
    const decoded = batches.map(
      (b, i) => (taken[i] ??= shared?.get(log, readerSchema, b.baseOffset, b.lastOffset)) ?? decodeStoredBatch(log, codec, readerSchema, b, failed, unknown),
    );
    // The second pass knows every writer (or why it failed): no id is unknown any more.
    if (unknown.size === 0 || failed !== NO_FAILURES) {
      // Offered before anything awaits: the readers of a partition wake on the same append, and one whose read
      // resumes next must find the batch here (offered after an await, it was nearly always decoded again).
      // A batch with undecodable records is not shared: each group reports its own rejections.
      decoded.forEach((batch, i) => {
        if (taken[i] === undefined && batch.rejections.length === 0) shared?.put(log, readerSchema, batches[i]!.baseOffset, batch);
      });
      return decoded;
    }
    failed = await codec.fetchWriters(unknown);
  }
}

/** Every record of one batch; ids of writer schemas not fetched yet are added to `unknown`. */
function decodeStoredBatch(
  log: PartitionLog,
  codec: ValueCodec,
  readerSchema: RecordSchema | undefined,
  b: StoredBatch,
  failed: ReadonlyMap<number, WriterLookup>,
  unknown: Set<number>,
): DecodedStoredBatch {
  const { topic, partition } = log;
  const records: LogRecord<unknown>[] = [];
  const rejections: Rejection[] = [];
  try {
    const cursor = new RecordCursor(b.batch);
    const bytes = cursor.bytes;
    if (bytes === null) return unreadable(log, b);
    while (cursor.next()) {
      const key = cursor.keyLength < 0 ? null : bytes.toString('utf8', cursor.keyStart, cursor.keyStart + cursor.keyLength);
      const headers = headersOf(cursor, bytes);
      const valueStart = cursor.valueStart;
      const valueEnd = valueStart + cursor.valueLength;
      const value = cursor.valueLength < 0 ? null : bytes;
      const d = codec.decodeAt(value, valueStart, valueEnd, readerSchema, failed);
      if (d.ok) {
        records.push({ topic, partition, offset: String(cursor.offset), key, value: d.value, headers, timestamp: cursor.timestamp, schemaId: d.schemaId });
        continue;
      }
      const id = value === null ? undefined : schemaIdAt(value, valueStart, valueEnd);
      if (d.reason === 'DECODE_UNKNOWN_SCHEMA' && typeof id === 'number' && !failed.has(id)) unknown.add(id);
      const raw = value === null ? null : value.subarray(valueStart, valueEnd);
      rejections.push(decodeRejection(topic, partition, cursor.offset, key, d.reason, d.message, raw));
    }
  } catch {
    return unreadable(log, b);
  }
  return { lastOffset: b.lastOffset, records, rejections };
}

/**
 * A batch whose records cannot be walked (a codec not decoded here, framing that does not add up): a rejection
 * for each offset the read wants (its header's offsets may be anything), and not shared with other readers.
 */
function unreadable(log: PartitionLog, b: StoredBatch): DecodedStoredBatch {
  const message = `${DECODE_REASONS.DECODE_UNREADABLE_BATCH} (attributes ${b.attributes})`;
  const rejections: Rejection[] = [];
  for (let offset = Math.max(b.from, b.baseOffset); offset <= b.lastOffset && offset < b.to; offset++) {
    rejections.push(decodeRejection(log.topic, log.partition, offset, null, 'DECODE_UNREADABLE_BATCH', message, null));
  }
  return { lastOffset: b.lastOffset, records: [], rejections };
}

/** Record headers as text; a repeated name keeps its last value, as the kafkajs adapter does. */
function headersOf(cursor: RecordCursor, bytes: Buffer): Headers {
  if (cursor.headersLeft === 0) return EMPTY_HEADERS;
  const out: Record<string, string> = {};
  while (cursor.nextHeader()) {
    if (cursor.headerValueLength >= 0)
      out[cursor.headerKey] = bytes.toString('utf8', cursor.headerValueStart, cursor.headerValueStart + cursor.headerValueLength);
  }
  return out;
}

const EMPTY_HEADERS: Headers = Object.freeze({});
