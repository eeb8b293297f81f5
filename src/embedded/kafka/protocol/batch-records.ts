/**
 * Reading the records of a record batch v2 (record-batch.ts has the batch's header and the encoder): a cursor
 * over them in place, and whole decoded records built on it.
 */
import { gunzipSync } from 'node:zlib';
import { MalformedFrameError } from './errors';
import { Reader } from './reader';
import { BATCH_HEADER_SIZE, Compression, LOG_APPEND_TIME_FLAG, readBatchHeader, type BatchHeader } from './record-batch';

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface DecodedRecord {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

/** Decompressed record bytes of a batch, or null when its codec is not available here. */
function recordBytes(batch: Buffer, attributes: number): Buffer | null {
  const body = batch.subarray(BATCH_HEADER_SIZE);
  switch (attributes & 0x07) {
    case Compression.NONE:
      return body;
    case Compression.GZIP:
      return gunzipSync(body);
    default:
      return null;
  }
}

/**
 * Walks the records of a batch (uncompressed or gzip) without an object per record: each `next()` moves the
 * fields below to the following record, `nextHeader()` to its following header. Keys, values and header values
 * are ranges of `bytes` (the batch's own memory when uncompressed). The in-process reader turns them into its
 * records directly; `decodeRecords` builds DecodedRecords from it.
 */
export class RecordCursor {
  /** Where the record fields point; null when the batch's codec is not decoded here (snappy, lz4, zstd). */
  readonly bytes: Buffer | null;
  offset = 0;
  timestamp = 0;
  keyStart = 0;
  /** -1 for a null key. */
  keyLength = -1;
  valueStart = 0;
  /** -1 for a null value. */
  valueLength = -1;
  /** Headers of the current record not visited yet. */
  headersLeft = 0;
  headerKey = '';
  headerValueStart = 0;
  /** -1 for a null header value. */
  headerValueLength = -1;
  private readonly header: BatchHeader;
  private readonly reader: Reader | null;
  private left: number;
  private recordEnd = 0;

  constructor(batch: Buffer) {
    this.header = readBatchHeader(batch);
    this.bytes = recordBytes(batch, this.header.attributes);
    this.reader = this.bytes === null ? null : new Reader(this.bytes);
    this.left = this.header.recordCount;
  }

  /** Moves to the next record; false after the last. Throws MalformedFrameError on bytes that do not add up. */
  next(): boolean {
    const r = this.reader;
    if (r === null || this.left === 0) return false;
    // Headers the caller did not visit are stepped over (and the record's length checked).
    while (this.nextHeader());
    this.left--;
    const h = this.header;
    const length = r.varint();
    this.recordEnd = r.offset + length;
    r.int8(); // record attributes, unused
    const delta = r.varint();
    this.timestamp = h.attributes & LOG_APPEND_TIME_FLAG ? h.maxTimestamp : h.baseTimestamp + delta;
    this.offset = h.baseOffset + r.varint();
    this.keyLength = r.varint();
    this.keyStart = this.skip(this.keyLength);
    this.valueLength = r.varint();
    this.valueStart = this.skip(this.valueLength);
    this.headersLeft = r.varint();
    if (this.headersLeft === 0) this.checkEnd();
    return true;
  }

  /** Moves to the current record's next header; false after its last. */
  nextHeader(): boolean {
    const r = this.reader;
    if (r === null || this.headersLeft === 0) return false;
    this.headersLeft--;
    const keyLength = r.varint();
    const keyStart = this.skip(keyLength);
    this.headerKey = (this.bytes as Buffer).toString('utf8', keyStart, keyStart + keyLength);
    this.headerValueLength = r.varint();
    this.headerValueStart = this.skip(this.headerValueLength);
    if (this.headersLeft === 0) this.checkEnd();
    return true;
  }

  /** Steps over a field of `length` bytes (none when -1, a null); answers where it starts. */
  private skip(length: number): number {
    const r = this.reader as Reader;
    return length > 0 ? r.skip(length) : r.offset;
  }

  private checkEnd(): void {
    if ((this.reader as Reader).offset !== this.recordEnd) throw new MalformedFrameError('record length does not match its fields');
  }
}

/**
 * Decodes the records of a batch (uncompressed or gzip); null for codecs the broker does not decode
 * (snappy, lz4, zstd are stored and served as they came). Used by timestamp look-ups and tests.
 * Keys, values and header values are views of the batch's bytes, not copies: stored batches never change, and
 * a view keeps its whole batch in memory while it is held.
 */
export function decodeRecords(batch: Buffer): DecodedRecord[] | null {
  const cursor = new RecordCursor(batch);
  const bytes = cursor.bytes;
  if (bytes === null) return null;
  const view = (start: number, length: number): Buffer | null => (length < 0 ? null : bytes.subarray(start, start + length));
  const out: DecodedRecord[] = [];
  while (cursor.next()) {
    const record: DecodedRecord = {
      offset: cursor.offset,
      timestamp: cursor.timestamp,
      key: view(cursor.keyStart, cursor.keyLength),
      value: view(cursor.valueStart, cursor.valueLength),
      headers: [],
    };
    while (cursor.nextHeader()) record.headers.push({ key: cursor.headerKey, value: view(cursor.headerValueStart, cursor.headerValueLength) });
    out.push(record);
  }
  return out;
}
