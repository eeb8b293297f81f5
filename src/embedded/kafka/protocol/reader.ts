import { MalformedFrameError } from './errors';

const TWO_32 = 4294967296;

/**
 * Reads Kafka primitive types from a buffer (big-endian, as the protocol guide defines them). Every read
 * is bounds-checked and throws MalformedFrameError past the end. INT64 values are returned as numbers:
 * offsets, timestamps and producer ids stay far below 2^53.
 */
export class Reader {
  offset: number;

  constructor(
    readonly buf: Buffer,
    offset = 0,
    readonly end = buf.length,
  ) {
    this.offset = offset;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private take(n: number): number {
    const at = this.offset;
    if (n < 0 || at + n > this.end) throw new MalformedFrameError(`read of ${n} bytes past the end at ${at}`);
    this.offset = at + n;
    return at;
  }

  int8(): number {
    return this.buf.readInt8(this.take(1));
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  int16(): number {
    return this.buf.readInt16BE(this.take(2));
  }

  int32(): number {
    return this.buf.readInt32BE(this.take(4));
  }

  uint32(): number {
    return this.buf.readUInt32BE(this.take(4));
  }

  int64(): number {
    const at = this.take(8);
    return this.buf.readInt32BE(at) * TWO_32 + this.buf.readUInt32BE(at + 4);
  }

  /** Unsigned LEB128 varint (flexible versions' lengths and tag counts). */
  uvarint(): number {
    // Most varints of a record batch are one byte (lengths of small fields, deltas): those skip the loop. Bytes are
    // indexed directly (readUInt8 checks the bounds `take` has already checked).
    let byte = this.buf[this.take(1)] as number;
    if (byte < 0x80) return byte;
    let value = byte & 0x7f;
    let scale = 0x80;
    for (;;) {
      byte = this.buf[this.take(1)] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 0x80;
      if (scale > 2 ** 63) throw new MalformedFrameError('varint too long');
    }
  }

  /** Zigzag-encoded signed varint (record fields); also used for 64-bit varlongs. */
  varint(): number {
    const raw = this.uvarint();
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }

  raw(n: number): Buffer {
    const at = this.take(n);
    return this.buf.subarray(at, at + n);
  }

  /** Steps over `n` bytes without a view of them; answers where they start. */
  skip(n: number): number {
    return this.take(n);
  }

  string(): string {
    const s = this.nullableString();
    if (s === null) throw new MalformedFrameError('null where a string is required');
    return s;
  }

  nullableString(): string | null {
    const len = this.int16();
    if (len < 0) return null;
    return this.raw(len).toString('utf8');
  }

  bytes(): Buffer {
    const b = this.nullableBytes();
    if (b === null) throw new MalformedFrameError('null where bytes are required');
    return b;
  }

  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len < 0) return null;
    return this.raw(len);
  }

  array<T>(item: (r: Reader) => T): T[] {
    const items = this.nullableArray(item);
    if (items === null) throw new MalformedFrameError('null where an array is required');
    return items;
  }

  nullableArray<T>(item: (r: Reader) => T): T[] | null {
    const count = this.int32();
    if (count < 0) return null;
    // Each element takes at least one byte: a count beyond the remaining bytes is a lie.
    if (count > this.remaining) throw new MalformedFrameError(`array of ${count} items in ${this.remaining} bytes`);
    const items: T[] = new Array<T>(count);
    for (let i = 0; i < count; i++) items[i] = item(this);
    return items;
  }

  /** COMPACT_STRING (flexible versions): length + 1 as an unsigned varint. */
  compactString(): string {
    const s = this.compactNullableString();
    if (s === null) throw new MalformedFrameError('null where a compact string is required');
    return s;
  }

  compactNullableString(): string | null {
    const len = this.uvarint() - 1;
    if (len < 0) return null;
    return this.raw(len).toString('utf8');
  }

  /** COMPACT_ARRAY (flexible versions): count + 1 as an unsigned varint; 0 is null. */
  compactArray<T>(item: (r: Reader) => T): T[] {
    const count = this.uvarint() - 1;
    if (count < 0) throw new MalformedFrameError('null where a compact array is required');
    if (count > this.remaining) throw new MalformedFrameError(`array of ${count} items in ${this.remaining} bytes`);
    const items: T[] = new Array<T>(count);
    for (let i = 0; i < count; i++) items[i] = item(this);
    return items;
  }

  /** Skips a flexible-version tagged-field section. */
  skipTaggedFields(): void {
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint();
      this.take(this.uvarint());
    }
  }
}
