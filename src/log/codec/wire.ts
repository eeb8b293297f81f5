/**
 * The Confluent wire format of a record value: magic byte 0, the schema's registry id as a 4-byte
 * big-endian integer, then the Avro binary encoding. Pure: bytes in, bytes out.
 */
export const MAGIC_BYTE = 0;
export const HEADER_SIZE = 5;

export function frame(schemaId: number, avro: Buffer): Buffer {
  return frameEncoded(schemaId, (buf, pos) => (pos + avro.length > buf.length ? buf.length - (pos + avro.length) : pos + avro.copy(buf, pos)));
}

/** Where values are encoded before they are copied out at their exact size; it grows to the largest value seen. */
let scratch = Buffer.allocUnsafe(64 * 1024);

/**
 * Frames what `write` encodes at `pos` of a buffer, copied out once at its exact size (no per-value buffers to
 * join). `write` answers the end position, or, when the buffer is too small, minus the bytes it lacks (avsc's
 * `Type.encode` contract).
 */
export function frameEncoded(schemaId: number, write: (buf: Buffer, pos: number) => number): Buffer {
  if (!Number.isInteger(schemaId) || schemaId < 0 || schemaId > 0x7fffffff) throw new RangeError(`invalid schema id ${schemaId}`);
  let end = write(scratch, HEADER_SIZE);
  if (end < 0) {
    scratch = Buffer.allocUnsafe(Math.max(scratch.length - end, scratch.length * 2));
    end = write(scratch, HEADER_SIZE);
  }
  const framed = Buffer.allocUnsafe(end);
  framed.writeUInt8(MAGIC_BYTE, 0);
  framed.writeInt32BE(schemaId, 1);
  scratch.copy(framed, HEADER_SIZE, HEADER_SIZE, end);
  return framed;
}

export type Unframed =
  | { readonly ok: true; readonly schemaId: number; readonly payload: Buffer }
  | { readonly ok: false; readonly reason: 'DECODE_EMPTY_VALUE' | 'DECODE_MAGIC_BYTE'; readonly message: string };

export type UnframeFailure = Extract<Unframed, { ok: false }>;

/** A record without a value, or with an empty one. */
export const NO_VALUE: UnframeFailure = Object.freeze({ ok: false, reason: 'DECODE_EMPTY_VALUE', message: 'the record has no value' });

export function unframe(value: Buffer | null): Unframed {
  if (value === null) return NO_VALUE;
  const schemaId = schemaIdAt(value, 0, value.length);
  return typeof schemaId === 'number' ? { ok: true, schemaId, payload: value.subarray(HEADER_SIZE) } : schemaId;
}

/** The schema id of the framed value in `buf` from `start` to `end` (exclusive), or why those bytes are not one. */
export function schemaIdAt(buf: Buffer, start: number, end: number): number | UnframeFailure {
  const length = end - start;
  if (length === 0) return NO_VALUE;
  if (buf[start] !== MAGIC_BYTE) {
    return { ok: false, reason: 'DECODE_MAGIC_BYTE', message: `magic byte is ${buf[start]}, expected ${MAGIC_BYTE}` };
  }
  if (length < HEADER_SIZE) {
    return { ok: false, reason: 'DECODE_MAGIC_BYTE', message: `value is ${length} bytes, shorter than the ${HEADER_SIZE}-byte header` };
  }
  return buf.readInt32BE(start + 1);
}
