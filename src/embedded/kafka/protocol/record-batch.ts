import { gzipSync } from 'node:zlib';
import { crc32c } from './crc32c';
import { MalformedFrameError } from './errors';
import { Reader } from './reader';
import { Writer } from './writer';

/**
 * Record batch v2 (magic 2), the unit the broker stores and serves. The broker reads only the 61-byte
 * header; records stay as the producer compressed them. Layout (byte offsets):
 *   0 baseOffset i64 · 8 batchLength i32 · 12 partitionLeaderEpoch i32 · 16 magic i8 · 17 crc u32
 *   21 attributes i16 · 23 lastOffsetDelta i32 · 27 baseTimestamp i64 · 35 maxTimestamp i64
 *   43 producerId i64 · 51 producerEpoch i16 · 53 baseSequence i32 · 57 recordCount i32 · 61 records
 * The CRC-32C covers byte 21 to the end, so baseOffset and partitionLeaderEpoch may be rewritten freely.
 */
export const BATCH_HEADER_SIZE = 61;
/** Bytes before batchLength's count starts: baseOffset + batchLength. */
export const BATCH_LOG_OVERHEAD = 12;
export const CRC_START = 21;

export const Compression = { NONE: 0, GZIP: 1, SNAPPY: 2, LZ4: 3, ZSTD: 4 } as const;
/** Attribute bit 3: the batch's timestamps are the broker's append time (its maxTimestamp), not the producer's. */
export const LOG_APPEND_TIME_FLAG = 0x08;
/** Attribute bit 4: the batch belongs to a transaction. */
export const TRANSACTIONAL_FLAG = 0x10;

export interface BatchHeader {
  baseOffset: number;
  /** Whole batch size in bytes, header included (batchLength + 12). */
  size: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  lastOffsetDelta: number;
  baseTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
}

export function readBatchHeader(buf: Buffer, at = 0): BatchHeader {
  if (buf.length - at < BATCH_HEADER_SIZE) throw new MalformedFrameError('record batch shorter than its header');
  const r = new Reader(buf, at);
  return {
    baseOffset: r.int64(),
    size: r.int32() + BATCH_LOG_OVERHEAD,
    partitionLeaderEpoch: r.int32(),
    magic: r.int8(),
    crc: r.uint32(),
    attributes: r.int16(),
    lastOffsetDelta: r.int32(),
    baseTimestamp: r.int64(),
    maxTimestamp: r.int64(),
    producerId: r.int64(),
    producerEpoch: r.int16(),
    baseSequence: r.int32(),
    recordCount: r.int32(),
  };
}

/** An int64 field read as a number (exact below 2^53), without a BigInt. */
const int64At = (buf: Buffer, at: number): number => buf.readInt32BE(at) * 4294967296 + buf.readUInt32BE(at + 4);

/** A stored batch's size, header included, read in place (the segment's walks over batch headers). */
export const batchSizeAt = (buf: Buffer, at: number): number => buf.readInt32BE(at + 8) + BATCH_LOG_OVERHEAD;
/** A stored batch's baseOffset, read in place. */
export const batchBaseOffsetAt = (buf: Buffer, at: number): number => int64At(buf, at);
/** A stored batch's last offset (baseOffset + lastOffsetDelta), read in place. */
export const batchLastOffsetAt = (buf: Buffer, at: number): number => int64At(buf, at) + buf.readInt32BE(at + 23);
/** A stored batch's maxTimestamp, read in place. */
export const batchMaxTimestampAt = (buf: Buffer, at: number): number => int64At(buf, at + 35);

export const batchCrcValid = (batch: Buffer): boolean => crc32c(batch, CRC_START) === batch.readUInt32BE(17);

/** Rewrites the broker-owned header fields in place (outside the CRC). */
export function assignBaseOffset(batch: Buffer, baseOffset: number, leaderEpoch = 0): void {
  const hi = Math.floor(baseOffset / 4294967296);
  batch.writeInt32BE(hi, 0);
  batch.writeUInt32BE(baseOffset - hi * 4294967296, 4);
  batch.writeInt32BE(leaderEpoch, 12);
}

/**
 * Marks a batch as stamped by the broker at `now` (topics with `message.timestamp.type=LogAppendTime`):
 * sets the timestamp-type attribute and maxTimestamp, as Kafka does, then recomputes the CRC they are under.
 * Records keep their producer deltas; readers take maxTimestamp for every record of such a batch.
 */
export function stampLogAppendTime(batch: Buffer, now: number): void {
  batch.writeInt16BE(batch.readInt16BE(21) | LOG_APPEND_TIME_FLAG, 21);
  const hi = Math.floor(now / 4294967296);
  batch.writeInt32BE(hi, 35);
  batch.writeUInt32BE(now - hi * 4294967296, 39);
  batch.writeUInt32BE(crc32c(batch, CRC_START), 17);
}

/**
 * Splits a produce request's record set into batches (views into the same memory). Throws on a set whose
 * framing does not add up; a batch with another magic is returned for the caller to refuse.
 */
export function splitBatches(records: Buffer): Buffer[] {
  const batches: Buffer[] = [];
  let at = 0;
  while (at < records.length) {
    if (records.length - at < 17) throw new MalformedFrameError('truncated record batch');
    const size = records.readInt32BE(at + 8) + BATCH_LOG_OVERHEAD;
    if (size < BATCH_HEADER_SIZE || at + size > records.length) throw new MalformedFrameError('bad record batch length');
    batches.push(records.subarray(at, at + size));
    at += size;
  }
  return batches;
}

export interface RecordInput {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  timestamp?: number;
  headers?: Record<string, Buffer | string>;
}

export interface BatchInput {
  records: RecordInput[];
  baseOffset?: number;
  compression?: typeof Compression.NONE | typeof Compression.GZIP;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  /** Part of a transaction (attribute bit 4): read_committed readers see it once its commit marker follows. */
  transactional?: boolean;
}

/** Bytes of a zigzag varint (Kafka's signed varint / varlong). */
function varintSize(v: number): number {
  let rest = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (rest >= 0x80) {
    rest = Math.floor(rest / 128);
    n++;
  }
  return n;
}

function putVarint(buf: Buffer, at: number, v: number): number {
  let rest = v >= 0 ? v * 2 : -v * 2 - 1;
  while (rest >= 0x80) {
    buf[at++] = (rest % 128) | 0x80;
    rest = Math.floor(rest / 128);
  }
  buf[at++] = rest;
  return at;
}

/** Encoded length of a key, value or header field: text counts its UTF-8 bytes. */
const fieldLength = (field: Buffer | string): number => (typeof field === 'string' ? Buffer.byteLength(field, 'utf8') : field.length);

const fieldSize = (length: number): number => (length < 0 ? 1 : varintSize(length) + length);

/** Writes a length-prefixed field (length -1 for null); text is written as UTF-8 straight into the batch. */
function putField(buf: Buffer, at: number, field: Buffer | string | null, length: number): number {
  at = putVarint(buf, at, length);
  if (field === null) return at;
  return at + (typeof field === 'string' ? buf.write(field, at) : field.copy(buf, at));
}

/**
 * One record measured: its body size (what its length prefix counts) and its key and value lengths (-1 for
 * null). Header fields are measured again when written: they are few and short, and this keeps one object per
 * record.
 */
interface RecordSize {
  readonly timestampDelta: number;
  readonly keyLength: number;
  readonly valueLength: number;
  readonly headerCount: number;
  readonly bodySize: number;
}

function measure(rec: RecordInput, offsetDelta: number, timestampDelta: number): RecordSize {
  const keyLength = rec.key === undefined || rec.key === null ? -1 : fieldLength(rec.key);
  const valueLength = rec.value === null ? -1 : fieldLength(rec.value);
  let headerCount = 0;
  let headersSize = 0;
  // for…in, not Object.entries: no array per record on the in-process write path.
  for (const name in rec.headers) {
    headerCount++;
    headersSize += fieldSize(Buffer.byteLength(name, 'utf8')) + fieldSize(fieldLength(rec.headers[name]!));
  }
  const bodySize =
    1 + varintSize(timestampDelta) + varintSize(offsetDelta) + fieldSize(keyLength) + fieldSize(valueLength) + varintSize(headerCount) + headersSize;
  return { timestampDelta, keyLength, valueLength, headerCount, bodySize };
}

/** Writes the records at `at` (length-prefixed bodies); answers the position after them. */
function putRecords(buf: Buffer, at: number, records: readonly RecordInput[], sizes: readonly RecordSize[]): number {
  for (let offsetDelta = 0; offsetDelta < records.length; offsetDelta++) {
    const rec = records[offsetDelta]!;
    const size = sizes[offsetDelta]!;
    at = putVarint(buf, at, size.bodySize);
    buf[at++] = 0; // record attributes
    at = putVarint(buf, at, size.timestampDelta);
    at = putVarint(buf, at, offsetDelta);
    at = putField(buf, at, rec.key ?? null, size.keyLength);
    at = putField(buf, at, rec.value, size.valueLength);
    at = putVarint(buf, at, size.headerCount);
    for (const name in rec.headers) {
      const value = rec.headers[name]!;
      at = putField(buf, at, name, Buffer.byteLength(name, 'utf8'));
      at = putField(buf, at, value, fieldLength(value));
    }
  }
  return at;
}

/**
 * Builds a record batch v2 (the in-process write log's appends, tests, internal topics). The records are
 * measured first and written once into a buffer of the exact size (text keys and headers straight from their
 * strings, without a buffer each); the CRC is computed once, over it.
 */
export function encodeRecordBatch(input: BatchInput): Buffer {
  const now = Date.now();
  let baseTimestamp = Infinity;
  let maxTimestamp = -Infinity;
  for (const r of input.records) {
    const t = r.timestamp ?? now;
    if (t < baseTimestamp) baseTimestamp = t;
    if (t > maxTimestamp) maxTimestamp = t;
  }
  if (input.records.length === 0) baseTimestamp = maxTimestamp = now;
  const sizes = input.records.map((r, i) => measure(r, i, (r.timestamp ?? now) - baseTimestamp));
  let recordsSize = 0;
  for (const size of sizes) recordsSize += varintSize(size.bodySize) + size.bodySize;
  const compression = input.compression ?? Compression.NONE;
  let batch: Buffer;
  if (compression === Compression.GZIP) {
    const plain = Buffer.allocUnsafe(recordsSize);
    putRecords(plain, 0, input.records, sizes);
    const records = gzipSync(plain);
    batch = Buffer.allocUnsafe(BATCH_HEADER_SIZE + records.length);
    records.copy(batch, BATCH_HEADER_SIZE);
  } else {
    batch = Buffer.allocUnsafe(BATCH_HEADER_SIZE + recordsSize);
    putRecords(batch, BATCH_HEADER_SIZE, input.records, sizes);
  }
  const header = new Writer(BATCH_HEADER_SIZE)
    .int64(input.baseOffset ?? 0)
    .int32(batch.length - BATCH_LOG_OVERHEAD)
    .int32(0)
    .int8(2)
    .uint32(0)
    .int16(compression | (input.transactional === true ? TRANSACTIONAL_FLAG : 0))
    .int32(Math.max(input.records.length - 1, 0))
    .int64(baseTimestamp)
    .int64(maxTimestamp)
    .int64(input.producerId ?? -1)
    .int16(input.producerEpoch ?? -1)
    .int32(input.baseSequence ?? -1)
    .int32(input.records.length)
    .toBuffer();
  header.copy(batch, 0);
  batch.writeUInt32BE(crc32c(batch, CRC_START), 17);
  return batch;
}
