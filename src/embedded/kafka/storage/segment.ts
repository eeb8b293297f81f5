import fs from 'node:fs';
import path from 'node:path';
import {
  BATCH_HEADER_SIZE,
  BATCH_LOG_OVERHEAD,
  type BatchHeader,
  batchBaseOffsetAt,
  batchCrcValid,
  batchLastOffsetAt,
  batchMaxTimestampAt,
  batchSizeAt,
  readBatchHeader,
} from '../protocol/record-batch';
import { fdatasync, readAt, readAtSync, writeAllSync } from './fs-util';
import { SegmentIndex } from './segment-index';

/** Bytes of the newest batches an active segment keeps in memory for its readers (see `recent`). */
const RECENT_BYTES = 512 * 1024;
const NAME_DIGITS = 20;
/** What the log cleaner reads of a segment at a time. */
const SEQUENTIAL_READ_BYTES = 1024 * 1024;

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

/**
 * One segment of a partition log: `<baseOffset>.log` holds record batches exactly as served (baseOffset
 * assigned), `<baseOffset>.index` its sparse index (segment-index.ts), a cache of the log rebuilt from the log
 * whenever it does not match it. The active segment is scanned at every open (partition-log.ts), so its index is
 * written only once it stops being active: in one write when it rolls (`syncIndexSync`) or closes, not at each
 * sync, where a pwrite per fsynced partition cost every group commit a system call no reader used.
 */
export class Segment {
  /** Bytes of valid log. */
  size = 0;
  /** Largest batch timestamp seen, -1 when none. */
  maxTimestamp = -1;
  readonly createdAt = Date.now();
  private readonly index: SegmentIndex;
  /** The last batch's last offset and position, -1 while the segment is empty. */
  private lastOffset = -1;
  private lastBatchPosition = -1;
  /** Batches were appended since the index file was written. */
  private indexStale = false;
  private closed = false;
  /**
   * The batches appended last, as written (at most about RECENT_BYTES), with their last offsets: the readers
   * that follow the tail, the service's own consumers above all, get them without a file read or a trip through
   * libuv's thread pool.
   */
  private readonly recent: Buffer[] = [];
  private readonly recentLastOffsets: number[] = [];
  private recentBytes = 0;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    private readonly logFd: number,
    private readonly indexFd: number,
    private readonly indexIntervalBytes: number,
  ) {
    this.index = new SegmentIndex(baseOffset);
  }

  static create(dir: string, baseOffset: number, indexIntervalBytes: number): Segment {
    const logFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'log')), 'w+');
    const indexFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'index')), 'w+');
    return new Segment(dir, baseOffset, logFd, indexFd, indexIntervalBytes);
  }

  /**
   * Opens an existing segment. With `verify`, the whole log is scanned, checking framing, growing offsets
   * and CRC-32C, and a torn or corrupt tail is truncated; otherwise the index is trusted when it
   * is consistent with the log's end. `onBatch` sees every batch header found by a scan.
   */
  static open(dir: string, baseOffset: number, indexIntervalBytes: number, verify: boolean, onBatch?: (h: BatchHeader) => void): Segment {
    const logFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'log')), 'r+');
    const indexFd = fs.openSync(path.join(dir, segmentFileName(baseOffset, 'index')), fs.constants.O_RDWR | fs.constants.O_CREAT);
    const seg = new Segment(dir, baseOffset, logFd, indexFd, indexIntervalBytes);
    const fileSize = fs.fstatSync(logFd).size;
    if (verify || !seg.loadIndex(fileSize)) seg.scan(fileSize, onBatch);
    return seg;
  }

  /** The offset after the last batch (== baseOffset when empty). */
  get nextOffset(): number {
    return this.lastOffset < 0 ? this.baseOffset : this.lastOffset + 1;
  }

  get isEmpty(): boolean {
    return this.lastOffset < 0;
  }

  /** Loads the index when it decodes and matches the log: its last batch ends at the end of the file. */
  private loadIndex(fileSize: number): boolean {
    const indexSize = fs.fstatSync(this.indexFd).size;
    if (fileSize === 0 || indexSize === 0) return fileSize === 0 && indexSize === 0;
    const tail = this.index.decode(readAtSync(this.indexFd, 0, indexSize));
    if (!tail) return false;
    const last = readAtSync(this.logFd, tail.lastBatchPosition, BATCH_HEADER_SIZE);
    if (last.length < BATCH_HEADER_SIZE || tail.lastBatchPosition + batchSizeAt(last, 0) !== fileSize || batchLastOffsetAt(last, 0) !== tail.lastOffset) {
      this.index.clear();
      return false;
    }
    this.size = fileSize;
    this.lastOffset = tail.lastOffset;
    this.lastBatchPosition = tail.lastBatchPosition;
    for (let i = 0; i < this.index.length; i++) this.maxTimestamp = Math.max(this.maxTimestamp, this.index.maxTimestamp(i));
    return true;
  }

  private scan(fileSize: number, onBatch?: (h: BatchHeader) => void): void {
    this.index.clear();
    this.lastOffset = this.lastBatchPosition = this.maxTimestamp = -1;
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
      this.note(h.baseOffset, h.baseOffset + h.lastOffsetDelta, pos, h.maxTimestamp);
      onBatch?.(h);
      expected = h.baseOffset + h.lastOffsetDelta + 1;
      pos += size;
    }
    if (pos !== fileSize) fs.ftruncateSync(this.logFd, pos);
    this.size = pos;
    this.writeIndex();
  }

  /** Writes the whole index (its CRC tells a torn write from a whole one). */
  private writeIndex(): void {
    const buf = this.index.encode({ lastBatchPosition: this.lastBatchPosition, lastOffset: this.lastOffset });
    writeAllSync(this.indexFd, buf, 0);
    fs.ftruncateSync(this.indexFd, buf.length);
    this.indexStale = false;
  }

  /** Records a stored batch: a new index entry once `index.interval.bytes` of log lie since the last one. */
  private note(base: number, last: number, position: number, maxTimestamp: number): void {
    if (this.index.length === 0 || position - this.index.lastPosition >= this.indexIntervalBytes) this.index.push(base, position, maxTimestamp);
    else this.index.raiseLastTimestamp(maxTimestamp);
    this.lastOffset = last;
    this.lastBatchPosition = position;
    if (maxTimestamp > this.maxTimestamp) this.maxTimestamp = maxTimestamp;
  }

  /** Appends a batch whose baseOffset is already assigned (page cache only; see sync). */
  append(batch: Buffer, baseOffset: number, lastOffset: number, maxTimestamp: number): void {
    const position = this.size;
    writeAllSync(this.logFd, batch, position);
    this.size += batch.length;
    this.note(baseOffset, lastOffset, position, maxTimestamp);
    this.indexStale = true;
    this.recent.push(ownMemory(batch));
    this.recentLastOffsets.push(lastOffset);
    this.recentBytes += batch.length;
    while (this.recentBytes > RECENT_BYTES && this.recent.length > 1) {
      this.recentBytes -= (this.recent.shift() as Buffer).length;
      this.recentLastOffsets.shift();
    }
  }

  /**
   * Whole batches from the one containing `offset` (or the first one after it, where the offset falls in a gap a
   * compaction left), stopping before `limitOffset` (exclusive: the high watermark) and, after the first batch,
   * before `maxBytes` would be exceeded. Null when the first batch is not below `limitOffset`; `offset` must be
   * below nextOffset.
   */
  read(offset: number, limitOffset: number, maxBytes: number): Promise<Buffer | null> {
    const first = this.recent[0];
    if (first && offset >= batchBaseOffsetAt(first, 0)) return Promise.resolve(this.readRecent(offset, limitOffset, maxBytes));
    return this.readFile(offset, limitOffset, maxBytes);
  }

  private readRecent(offset: number, limitOffset: number, maxBytes: number): Buffer | null {
    const lasts = this.recentLastOffsets;
    let lo = 0;
    let hi = lasts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((lasts[mid] as number) >= offset) hi = mid;
      else lo = mid + 1;
    }
    if ((lasts[lo] as number) >= limitOffset) return null;
    let bytes = (this.recent[lo] as Buffer).length;
    let after = lo + 1;
    while (after < lasts.length && (lasts[after] as number) < limitOffset && bytes + (this.recent[after] as Buffer).length <= maxBytes) {
      bytes += (this.recent[after] as Buffer).length;
      after++;
    }
    return after === lo + 1 ? (this.recent[lo] as Buffer) : Buffer.concat(this.recent.slice(lo, after), bytes);
  }

  /**
   * Reads from the index entry at or before `offset` up to `maxBytes` past the next entry, walks the headers to
   * the wanted batch, and returns the batches after it that fit. The batches of an entry's range end exactly at
   * the next entry, so the walk stays inside what was read; only a first batch larger than the rest of the chunk
   * takes a second read.
   */
  private async readFile(offset: number, limitOffset: number, maxBytes: number): Promise<Buffer | null> {
    const e = this.index.floor(offset);
    const from = this.index.position(e);
    const rangeEnd = e + 1 < this.index.length ? this.index.position(e + 1) : this.size;
    const chunk = await readAt(this.logFd, from, Math.min(this.size, rangeEnd + Math.max(maxBytes, BATCH_HEADER_SIZE)) - from);
    let start = 0;
    while (start + BATCH_HEADER_SIZE <= chunk.length && batchLastOffsetAt(chunk, start) < offset) start += batchSizeAt(chunk, start);
    if (start + BATCH_HEADER_SIZE > chunk.length) throw new Error(`segment ${this.baseOffset}: its index does not lead to offset ${offset}`);
    if (batchLastOffsetAt(chunk, start) >= limitOffset) return null;
    let end = start + batchSizeAt(chunk, start);
    if (end > chunk.length) return readAt(this.logFd, from + start, end - start);
    while (end + BATCH_HEADER_SIZE <= chunk.length) {
      const next = end + batchSizeAt(chunk, end);
      if (next > chunk.length || next - start > maxBytes || batchLastOffsetAt(chunk, end) >= limitOffset) break;
      end = next;
    }
    return chunk.subarray(start, end);
  }

  /** The stored bytes of the first batch whose max timestamp is ≥ ts; undefined when there is none. */
  async firstBatchAtOrAfter(ts: number): Promise<Buffer | undefined> {
    const e = this.index.firstAtOrAfter(ts);
    if (e < 0) return undefined;
    const from = this.index.position(e);
    const rangeEnd = e + 1 < this.index.length ? this.index.position(e + 1) : this.size;
    const range = await readAt(this.logFd, from, rangeEnd - from);
    for (let at = 0; at + BATCH_HEADER_SIZE <= range.length; at += batchSizeAt(range, at)) {
      if (batchMaxTimestampAt(range, at) >= ts) return range.subarray(at, at + batchSizeAt(range, at));
    }
    return undefined;
  }

  /** Every stored batch, in order, read sequentially a chunk at a time (the log cleaner). */
  async *batches(): AsyncGenerator<Buffer> {
    let position = 0;
    while (position < this.size) {
      let chunk = await readAt(this.logFd, position, Math.min(SEQUENTIAL_READ_BYTES, this.size - position));
      if (chunk.length >= BATCH_HEADER_SIZE && batchSizeAt(chunk, 0) > chunk.length) chunk = await readAt(this.logFd, position, batchSizeAt(chunk, 0));
      let at = 0;
      while (at + BATCH_HEADER_SIZE <= chunk.length && at + batchSizeAt(chunk, at) <= chunk.length) {
        const size = batchSizeAt(chunk, at);
        yield chunk.subarray(at, at + size);
        at += size;
      }
      if (at === 0) throw new Error(`segment ${this.baseOffset}: no whole batch at position ${position}`);
      position += at;
    }
  }

  sync(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return fdatasync(this.logFd);
  }

  /** Writes and fsyncs the index of a segment that is no longer the active one. */
  syncIndexSync(): void {
    if (this.closed) return;
    if (this.indexStale) this.writeIndex();
    fs.fdatasyncSync(this.indexFd);
  }

  /** Last time the segment received data, for time retention when batches carry no timestamps. */
  lastModified(): number {
    return fs.fstatSync(this.logFd).mtimeMs;
  }

  /** Forgets the batches kept for readers: the segment is no longer the one appended to. */
  releaseRecent(): void {
    this.recent.length = 0;
    this.recentLastOffsets.length = 0;
    this.recentBytes = 0;
  }

  close(): void {
    if (this.closed) return;
    if (this.indexStale) this.writeIndex();
    this.closed = true;
    this.releaseRecent();
    fs.closeSync(this.logFd);
    fs.closeSync(this.indexFd);
  }

  deleteFiles(): void {
    for (const ext of ['log', 'index'] as const) fs.rmSync(path.join(this.dir, segmentFileName(this.baseOffset, ext)), { force: true });
  }
}
