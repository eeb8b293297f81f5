import fs from 'node:fs';
import path from 'node:path';
import { BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, type BatchHeader, batchCrcValid, readBatchHeader } from '../protocol/record-batch';
import { BatchIndex } from './batch-index';
import { fdatasync, readAt, readAtSync, writeAllSync } from './fs-util';

/**
 * One segment of a partition log: `<baseOffset>.log` holds record batches exactly as served (baseOffset
 * assigned), `<baseOffset>.index` one 20-byte entry per batch: relative base offset i32, relative last
 * offset i32, file position i32, max timestamp i64. The index is a cache of the log, rebuilt from the log
 * whenever it does not match it. The active segment is scanned at every open (partition-log.ts), so its index is
 * written only once it stops being active: in one write when it rolls (`syncIndexSync`) or closes, not at each
 * sync, where a pwrite per fsynced partition cost every group commit a system call no reader used.
 */
const INDEX_ENTRY = 20;
/** Bytes of the newest batches an active segment keeps in memory for its readers (see `recent`). */
const RECENT_BYTES = 512 * 1024;
const NAME_DIGITS = 20;

/**
 * The batch in memory of its own where it is a view into a much larger allocation: a produce request's frame
 * (splitBatches), or the pool Node carves Buffers under 4 KiB from (a transaction marker is 61 bytes of an
 * 8 KiB slab). Kept as it is, `recent` would hold all of that memory alive while counting only the batch.
 */
function ownMemory(batch: Buffer): Buffer {
  if (batch.buffer.byteLength <= 2 * batch.length) return batch;
  const own = Buffer.allocUnsafeSlow(batch.length);
  batch.copy(own);
  return own;
}

/** Suffix of a segment's cleaned copy while it is written, before it replaces the segment's log. */
export const CLEANED_SUFFIX = '.cleaned';

export const segmentFileName = (baseOffset: number, ext: 'log' | 'index'): string => `${String(baseOffset).padStart(NAME_DIGITS, '0')}.${ext}`;

export interface BatchLocation {
  /** Index of the batch inside the segment. */
  index: number;
  baseOffset: number;
  lastOffset: number;
  position: number;
}

export class Segment {
  /** Bytes of valid log. */
  size = 0;
  /** Largest batch timestamp seen, -1 when none. */
  maxTimestamp = -1;
  readonly createdAt = Date.now();
  private readonly batches: BatchIndex;
  /** Index entries already in the index file; the rest are written when the segment rolls or closes. */
  private indexed = 0;
  private closed = false;
  /**
   * The batches appended last, as written (at most about RECENT_BYTES): the readers that follow the tail, the
   * service's own consumers above all, get them without a file read or a trip through libuv's thread pool.
   */
  private readonly recent: Buffer[] = [];
  private recentBytes = 0;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private readonly logFd: number,
    private readonly indexFd: number,
  ) {
    this.batches = new BatchIndex(baseOffset);
  }

  static create(dir: string, baseOffset: number): Segment {
    const logFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'log')), 'w+');
    const indexFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'index')), 'w+');
    return new Segment(dir, baseOffset, logFd, indexFd);
  }

  /**
   * Opens an existing segment. With `verify`, the whole log is scanned, checking framing, growing offsets
   * and CRC-32C, and a torn or corrupt tail is truncated; otherwise the index is trusted when it
   * is consistent with the log's size. `onBatch` sees every batch header found by a scan.
   */
  static open(dir: string, baseOffset: number, verify: boolean, onBatch?: (h: BatchHeader) => void): Segment {
    const logFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'log')), 'r+');
    const indexFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'index')), fs.constants.O_RDWR | fs.constants.O_CREAT);
    const seg = new Segment(dir, baseOffset, logFd, indexFd);
    const fileSize = fs.fstatSync(logFd).size;
    if (verify || !seg.loadIndex(fileSize)) seg.scan(fileSize, onBatch);
    return seg;
  }

  get batchCount(): number {
    return this.batches.length;
  }

  /** The offset after the last batch (== baseOffset when empty). */
  get nextOffset(): number {
    const n = this.batches.length;
    return n === 0 ? this.baseOffset : this.batches.last(n - 1) + 1;
  }

  get isEmpty(): boolean {
    return this.batches.length === 0;
  }

  /** Loads the index when it matches the log: first batch at 0, last batch ending at the end of file. */
  private loadIndex(fileSize: number): boolean {
    const indexSize = fs.fstatSync(this.indexFd).size;
    if (indexSize % INDEX_ENTRY !== 0 || (indexSize === 0) !== (fileSize === 0)) return false;
    const buf = readAtSync(this.indexFd, 0, indexSize);
    let lastPos = -1;
    for (let at = 0; at < indexSize; at += INDEX_ENTRY) {
      const pos = buf.readInt32BE(at + 8);
      if (pos <= lastPos || (at === 0 && pos !== 0)) return this.resetIndex();
      lastPos = pos;
      this.pushEntry(this.baseOffset + buf.readInt32BE(at), this.baseOffset + buf.readInt32BE(at + 4), pos, Number(buf.readBigInt64BE(at + 12)));
    }
    if (lastPos >= 0) {
      const header = readAtSync(this.logFd, lastPos, BATCH_HEADER_SIZE);
      if (header.length < BATCH_HEADER_SIZE || lastPos + header.readInt32BE(8) + BATCH_LOG_OVERHEAD !== fileSize) return this.resetIndex();
    }
    this.size = fileSize;
    this.indexed = this.batches.length;
    return true;
  }

  private resetIndex(): false {
    this.batches.clear();
    this.indexed = 0;
    this.maxTimestamp = -1;
    return false;
  }

  private scan(fileSize: number, onBatch?: (h: BatchHeader) => void): void {
    this.resetIndex();
    let pos = 0;
    let expected = this.baseOffset;
    while (pos + BATCH_HEADER_SIZE <= fileSize) {
      const head = readAtSync(this.logFd, pos, BATCH_HEADER_SIZE);
      const size = head.readInt32BE(8) + BATCH_LOG_OVERHEAD;
      if (size < BATCH_HEADER_SIZE || pos + size > fileSize) break;
      const batch = readAtSync(this.logFd, pos, size);
      const h = readBatchHeader(batch);
      // Offsets only grow: a compacted segment has gaps where whole batches were cleaned away.
      if (h.magic !== 2 || h.baseOffset < expected || h.lastOffsetDelta < 0 || !batchCrcValid(batch)) break;
      this.pushEntry(h.baseOffset, h.baseOffset + h.lastOffsetDelta, pos, h.maxTimestamp);
      onBatch?.(h);
      expected = h.baseOffset + h.lastOffsetDelta + 1;
      pos += size;
    }
    if (pos !== fileSize) fs.ftruncateSync(this.logFd, pos);
    this.size = pos;
    this.rewriteIndex();
  }

  private rewriteIndex(): void {
    const buf = Buffer.allocUnsafe(this.batches.length * INDEX_ENTRY);
    for (let i = 0; i < this.batches.length; i++) this.encodeEntry(buf, i * INDEX_ENTRY, i);
    fs.ftruncateSync(this.indexFd, 0);
    writeAllSync(this.indexFd, buf, 0);
    this.indexed = this.batches.length;
  }

  /** Writes the index entries of the batches appended since the last call, in one write. */
  private writeIndexTail(): void {
    const count = this.batches.length - this.indexed;
    if (count === 0 || this.closed) return;
    const buf = Buffer.allocUnsafe(count * INDEX_ENTRY);
    for (let i = 0; i < count; i++) this.encodeEntry(buf, i * INDEX_ENTRY, this.indexed + i);
    writeAllSync(this.indexFd, buf, this.indexed * INDEX_ENTRY);
    this.indexed += count;
  }

  private encodeEntry(buf: Buffer, at: number, i: number): void {
    buf.writeInt32BE(this.batches.base(i) - this.baseOffset, at);
    buf.writeInt32BE(this.batches.last(i) - this.baseOffset, at + 4);
    buf.writeInt32BE(this.batches.position(i), at + 8);
    buf.writeBigInt64BE(BigInt(this.batches.maxTimestamp(i)), at + 12);
  }

  private pushEntry(base: number, last: number, position: number, maxTimestamp: number): void {
    this.batches.push(base, last, position, maxTimestamp);
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /** Appends a batch whose baseOffset is already assigned (page cache only; see sync). */
  append(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number): void {
    const position = this.size;
    writeAllSync(this.logFd, batch, position);
    this.size += batch.length;
    this.pushEntry(baseOffset, lastOffset, position, maxTimestamp);
    this.recent.push(ownMemory(batch));
    this.recentBytes += batch.length;
    while (this.recentBytes > RECENT_BYTES && this.recent.length > 1) this.recentBytes -= (this.recent.shift() as Buffer).length;
  }

  /**
   * The batch containing `offset`, or the first one after it when the offset falls in a gap a compaction left;
   * undefined when the segment ends before it.
   */
  locate(offset: number): BatchLocation | undefined {
    let lo = 0;
    let hi = this.batches.length - 1;
    if (hi < 0 || offset > this.batches.last(hi)) return undefined;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.batches.last(mid) >= offset) hi = mid;
      else lo = mid + 1;
    }
    return this.batchAt(lo);
  }

  /** First batch index whose max timestamp is >= ts, or -1. */
  firstBatchAtOrAfter(ts: number): number {
    for (let i = 0; i < this.batches.length; i++) if (this.batches.maxTimestamp(i) >= ts) return i;
    return -1;
  }

  batchAt(i: number): BatchLocation {
    return { index: i, baseOffset: this.batches.base(i), lastOffset: this.batches.last(i), position: this.batches.position(i) };
  }

  /**
   * Reads whole batches from batch `first` on, stopping before `limitOffset` (exclusive: the high
   * watermark) and, after the first batch, before `maxBytes` would be exceeded.
   */
  async readBatches(first: number, limitOffset: number, maxBytes: number): Promise<Buffer | null> {
    const start = this.batches.position(first);
    let end = start;
    let after = first;
    for (let i = first; i < this.batches.length; i++) {
      if (this.batches.last(i) >= limitOffset) break;
      const next = this.endOf(i);
      if (i > first && next - start > maxBytes) break;
      end = next;
      after = i + 1;
    }
    if (end === start) return null;
    const firstRecent = this.batches.length - this.recent.length;
    if (first >= firstRecent) {
      const parts = this.recent.slice(first - firstRecent, after - firstRecent);
      return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, end - start);
    }
    return readAt(this.logFd, start, end - start);
  }

  /** The stored bytes of one batch. */
  readBatch(i: number): Promise<Buffer> {
    const start = this.batches.position(i);
    return readAt(this.logFd, start, this.endOf(i) - start);
  }

  /** Where batch `i` ends in the log: the next batch's position, or the log's end for the last one. */
  private endOf(i: number): number {
    return i + 1 < this.batches.length ? this.batches.position(i + 1) : this.size;
  }

  sync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return fdatasync(this.logFd);
  }

  /** Writes and fsyncs the index of a segment that is no longer the active one. */
  syncIndexSync(): void {
    if (this.closed) return;
    this.writeIndexTail();
    fs.fdatasyncSync(this.indexFd);
  }

  /** Last time the segment received data, for time retention when batches carry no timestamps. */
  lastModified(): number {
    return fs.fstatSync(this.logFd).mtimeMs;
  }

  /** Forgets the batches kept for readers: the segment is no longer the one appended to. */
  releaseRecent(): void {
    this.recent.length = 0;
    this.recentBytes = 0;
  }

  close(): void {
    if (this.closed) return;
    this.writeIndexTail();
    this.closed = true;
    this.releaseRecent();
    fs.closeSync(this.logFd);
    fs.closeSync(this.indexFd);
  }

  deleteFiles(): void {
    for (const ext of ['log', 'index'] as const) fs.rmSync(path.join(this.dir, segmentFileName(this.baseOffset, ext)), { force: true });
  }
}
