import { crc32c } from '../protocol/crc32c';

/**
 * A segment's sparse index, as Kafka keeps one: an entry per `index.interval.bytes` of log (4 KiB by default),
 * not one per batch. Each entry is a batch boundary: that batch's base offset (relative to the segment's), its
 * file position, and the largest timestamp of the batches from it up to the next entry. A lookup takes the
 * nearest entry at or before what it wants and walks the batch headers forward from there, in the chunk of log it
 * reads anyway (segment.ts).
 *
 * Why sparse: the service's logs hold a batch per produce request, pipeline round and transaction marker (about
 * 2 per operation in the soak), and an entry per batch would grow every segment's memory, closed ones too, with its
 * batch count until retention deletes it. Here a segment holds 16 bytes per 4 KiB of log.
 *
 * The index file, `<base>.index`, written whole when the segment stops being the active one:
 *   0 magic u32 · 4 CRC-32C u32 of everything after it · 8 last batch's position i32 · 12 last offset i32
 *   (relative) · 16 entries of 16 bytes: relative base offset i32, position i32, max timestamp i64.
 * An empty segment's index file is empty. The file is a cache of the log: the segment rebuilds it from the log
 * when it does not decode or does not match the log's end.
 */
const MAGIC = 0x44425831; // "DBX1"
const HEADER_SIZE = 16;
const ENTRY_SIZE = 16;
const INITIAL_CAPACITY = 16;

/** What an index file says beyond its entries: where the log's last batch starts and the offset it ends at. */
export interface IndexTail {
  lastBatchPosition: number;
  lastOffset: number;
}

export class SegmentIndex {
  private bases = new Int32Array(INITIAL_CAPACITY);
  private positions = new Int32Array(INITIAL_CAPACITY);
  private stamps = new Float64Array(INITIAL_CAPACITY);
  private count = 0;

  constructor(readonly baseOffset: number) {}

  get length(): number {
    return this.count;
  }

  /** Position of the newest entry, -1 when there is none. */
  get lastPosition(): number {
    return this.count === 0 ? -1 : (this.positions[this.count - 1] as number);
  }

  push(base: number, position: number, maxTimestamp: number): void {
    if (this.count === this.bases.length) this.grow();
    const i = this.count++;
    this.bases[i] = base - this.baseOffset;
    this.positions[i] = position;
    this.stamps[i] = maxTimestamp;
  }

  /** A batch joined the newest entry's range. */
  raiseLastTimestamp(maxTimestamp: number): void {
    const i = this.count - 1;
    if (maxTimestamp > (this.stamps[i] as number)) this.stamps[i] = maxTimestamp;
  }

  base(i: number): number {
    return this.baseOffset + (this.bases[i] as number);
  }

  position(i: number): number {
    return this.positions[i] as number;
  }

  maxTimestamp(i: number): number {
    return this.stamps[i] as number;
  }

  /** The last entry whose base offset is ≤ `offset`; 0 when every entry's is above it. */
  floor(offset: number): number {
    const rel = offset - this.baseOffset;
    let lo = 0;
    let hi = this.count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.bases[mid] as number) <= rel) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The first entry whose range holds a timestamp ≥ ts, or -1. */
  firstAtOrAfter(ts: number): number {
    for (let i = 0; i < this.count; i++) if ((this.stamps[i] as number) >= ts) return i;
    return -1;
  }

  clear(): void {
    this.count = 0;
  }

  /** The index file's bytes (empty for an empty segment). */
  encode(tail: IndexTail): Buffer {
    if (this.count === 0) return Buffer.alloc(0);
    const buf = Buffer.allocUnsafe(HEADER_SIZE + this.count * ENTRY_SIZE);
    buf.writeUInt32BE(MAGIC, 0);
    buf.writeInt32BE(tail.lastBatchPosition, 8);
    buf.writeInt32BE(tail.lastOffset - this.baseOffset, 12);
    for (let i = 0; i < this.count; i++) {
      const at = HEADER_SIZE + i * ENTRY_SIZE;
      buf.writeInt32BE(this.bases[i] as number, at);
      buf.writeInt32BE(this.positions[i] as number, at + 4);
      buf.writeBigInt64BE(BigInt(this.stamps[i] as number), at + 8);
    }
    buf.writeUInt32BE(crc32c(buf, 8), 4);
    return buf;
  }

  /**
   * Fills this (empty) index from an index file's bytes. Undefined when they are not an index this segment wrote
   * whole: another format, a torn write, entries out of order, a first entry not at the log's start.
   */
  decode(buf: Buffer): IndexTail | undefined {
    const n = (buf.length - HEADER_SIZE) / ENTRY_SIZE;
    if (!Number.isInteger(n) || n < 1 || buf.readUInt32BE(0) !== MAGIC || buf.readUInt32BE(4) !== crc32c(buf, 8)) return undefined;
    const tail = { lastBatchPosition: buf.readInt32BE(8), lastOffset: this.baseOffset + buf.readInt32BE(12) };
    for (let i = 0; i < n; i++) {
      const at = HEADER_SIZE + i * ENTRY_SIZE;
      const base = this.baseOffset + buf.readInt32BE(at);
      const position = buf.readInt32BE(at + 4);
      const ordered = i === 0 ? position === 0 : position > this.lastPosition && base > this.base(i - 1);
      if (!ordered) {
        this.clear();
        return undefined;
      }
      this.push(base, position, Number(buf.readBigInt64BE(at + 8)));
    }
    if (tail.lastBatchPosition < this.lastPosition || tail.lastOffset < this.base(n - 1)) {
      this.clear();
      return undefined;
    }
    return tail;
  }

  private grow(): void {
    const capacity = Math.ceil(this.bases.length * 1.5);
    const grown = <T extends Int32Array | Float64Array>(old: T, next: T): T => {
      next.set(old);
      return next;
    };
    this.bases = grown(this.bases, new Int32Array(capacity));
    this.positions = grown(this.positions, new Int32Array(capacity));
    this.stamps = grown(this.stamps, new Float64Array(capacity));
  }
}
