import { gunzipSync, gzipSync } from 'node:zlib';
import { crc32c } from './crc32c';
import { Reader } from './reader';
import { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, CRC_START, Compression, LOG_APPEND_TIME_FLAG, readBatchHeader } from './record-batch';

/** What the log cleaner needs to know of one record to keep or drop it. */
export interface RecordSummary {
  offset: number;
  /** The record's time: the batch's append time on a LogAppendTime batch. */
  timestamp: number;
  /** Null for a record without a key. */
  key: Buffer | null;
  /** A null value: a tombstone. */
  isTombstone: boolean;
}

/** Attribute bits of batches the cleaner leaves whole: transactional (4) and control (5) batches. */
const LEFT_WHOLE = 0x30;

/**
 * The records of a batch the cleaner can rewrite (uncompressed or gzip; not transactional or control), each
 * with the raw bytes it is stored as; null for any other batch, which is kept as it is.
 */
export function summarizeRecords(batch: Buffer): { summary: RecordSummary; raw: Buffer }[] | null {
  const h = readBatchHeader(batch);
  if (h.attributes & LEFT_WHOLE) return null;
  const codec = h.attributes & 0x07;
  if (codec !== Compression.NONE && codec !== Compression.GZIP) return null;
  const body = codec === Compression.GZIP ? gunzipSync(batch.subarray(BATCH_HEADER_SIZE)) : batch.subarray(BATCH_HEADER_SIZE);
  const appendTime = h.attributes & LOG_APPEND_TIME_FLAG ? h.maxTimestamp : -1;
  const out: { summary: RecordSummary; raw: Buffer }[] = [];
  const r = new Reader(body);
  for (let i = 0; i < h.recordCount; i++) {
    const from = r.offset;
    const length = r.varint();
    const start = r.offset;
    r.skip(1); // record attributes
    const timestamp = h.baseTimestamp + r.varint();
    const offset = h.baseOffset + r.varint();
    const keyLength = r.varint();
    const key = keyLength < 0 ? null : Buffer.from(r.raw(keyLength));
    const isTombstone = r.varint() < 0;
    r.offset = start + length;
    out.push({ summary: { offset, timestamp: appendTime >= 0 ? appendTime : timestamp, key, isTombstone }, raw: body.subarray(from, r.offset) });
  }
  return out;
}

/**
 * The batch with only `kept` of its records (raw bytes as `summarizeRecords` gave them). Base offset, last
 * offset delta and timestamps stay, so every record keeps its offset and the batch its place: offsets inside
 * and between batches may then have gaps, as in Kafka. Record count, length and CRC are rewritten.
 */
export function rewriteBatch(batch: Buffer, kept: Buffer[]): Buffer {
  const h = readBatchHeader(batch);
  const plain = Buffer.concat(kept);
  const records = (h.attributes & 0x07) === Compression.GZIP ? gzipSync(plain) : plain;
  const out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + records.length);
  batch.copy(out, 0, 0, BATCH_HEADER_SIZE);
  records.copy(out, BATCH_HEADER_SIZE);
  out.writeInt32BE(out.length - BATCH_LOG_OVERHEAD, 8);
  out.writeInt32BE(kept.length, BATCH_HEADER_SIZE - 4);
  out.writeUInt32BE(crc32c(out, CRC_START), 17);
  return out;
}
