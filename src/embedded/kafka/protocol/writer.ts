const TWO_32 = 4294967296;
/** Buffers at least this long are appended by reference rather than copied (stored record batches). */
const ZERO_COPY_THRESHOLD = 1024;

/**
 * Writes Kafka primitive types. Output is a list of chunks so that large stored record batches go to the
 * socket without being copied; `toBuffer()` joins them for tests.
 */
export class Writer {
  private chunks: Buffer[] = [];
  private cur: Buffer;
  private pos = 0;
  private flushed = 0;

  constructor(initialSize = 256) {
    this.cur = Buffer.allocUnsafe(initialSize);
  }

  /** Total bytes written so far. */
  get length(): number {
    return this.flushed + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.cur.length) return;
    this.flushCurrent();
    this.cur = Buffer.allocUnsafe(Math.max(n, this.cur.length * 2, 256));
  }

  private flushCurrent(): void {
    if (this.pos === 0) return;
    this.chunks.push(this.cur.subarray(0, this.pos));
    this.flushed += this.pos;
    this.cur = this.cur.subarray(this.pos);
    this.pos = 0;
  }

  int8(v: number): this {
    this.ensure(1);
    this.pos = this.cur.writeInt8(v, this.pos);
    return this;
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }

  int16(v: number): this {
    this.ensure(2);
    this.pos = this.cur.writeInt16BE(v, this.pos);
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.pos = this.cur.writeInt32BE(v, this.pos);
    return this;
  }

  uint32(v: number): this {
    this.ensure(4);
    this.pos = this.cur.writeUInt32BE(v >>> 0, this.pos);
    return this;
  }

  int64(v: number): this {
    this.ensure(8);
    const hi = Math.floor(v / TWO_32);
    this.cur.writeInt32BE(hi, this.pos);
    this.cur.writeUInt32BE(v - hi * TWO_32, this.pos + 4);
    this.pos += 8;
    return this;
  }

  uvarint(v: number): this {
    this.ensure(10);
    let rest = v;
    while (rest >= 0x80) {
      this.cur[this.pos++] = (rest % 128) | 0x80;
      rest = Math.floor(rest / 128);
    }
    this.cur[this.pos++] = rest;
    return this;
  }

  /** Zigzag signed varint / varlong. */
  varint(v: number): this {
    return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  raw(buf: Buffer): this {
    if (buf.length >= ZERO_COPY_THRESHOLD) {
      this.flushCurrent();
      this.chunks.push(buf);
      this.flushed += buf.length;
      return this;
    }
    this.ensure(buf.length);
    buf.copy(this.cur, this.pos);
    this.pos += buf.length;
    return this;
  }

  string(s: string): this {
    const len = Buffer.byteLength(s, 'utf8');
    this.int16(len);
    this.ensure(len);
    this.pos += this.cur.write(s, this.pos, 'utf8');
    return this;
  }

  nullableString(s: string | null | undefined): this {
    return s === null || s === undefined ? this.int16(-1) : this.string(s);
  }

  bytes(b: Buffer): this {
    return this.int32(b.length).raw(b);
  }

  nullableBytes(b: Buffer | null | undefined): this {
    return b === null || b === undefined ? this.int32(-1) : this.bytes(b);
  }

  /** A NULLABLE_BYTES field made of several buffers laid end to end (stored record batches). */
  bytesFromChunks(parts: readonly Buffer[]): this {
    let total = 0;
    for (const p of parts) total += p.length;
    this.int32(total);
    for (const p of parts) this.raw(p);
    return this;
  }

  array<T>(items: readonly T[], item: (w: Writer, value: T) => void): this {
    this.int32(items.length);
    for (const v of items) item(this, v);
    return this;
  }

  nullableArray<T>(items: readonly T[] | null | undefined, item: (w: Writer, value: T) => void): this {
    if (items === null || items === undefined) return this.int32(-1);
    return this.array(items, item);
  }

  /** COMPACT_STRING (flexible versions). */
  compactString(s: string): this {
    const len = Buffer.byteLength(s, 'utf8');
    this.uvarint(len + 1);
    this.ensure(len);
    this.pos += this.cur.write(s, this.pos, 'utf8');
    return this;
  }

  compactNullableString(s: string | null | undefined): this {
    return s === null || s === undefined ? this.uvarint(0) : this.compactString(s);
  }

  /** COMPACT_ARRAY (flexible versions). */
  compactArray<T>(items: readonly T[], item: (w: Writer, value: T) => void): this {
    this.uvarint(items.length + 1);
    for (const v of items) item(this, v);
    return this;
  }

  /** An empty tagged-field section: the broker sends no tagged fields. */
  noTaggedFields(): this {
    return this.uvarint(0);
  }

  /** The chunks written so far (the last one may share memory with later writes: use once, at the end). */
  toChunks(): Buffer[] {
    this.flushCurrent();
    return this.chunks;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.toChunks(), this.length);
  }
}
