import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of record batch v2. Not Node's
 * zlib.crc32, which is CRC-32/IEEE. Every produced batch is checked, so long ranges go to @node-rs/crc32's
 * native SIMD code (several GB/s, 5-10x the table loop below); short ones (journal lines, small batches) stay
 * in JavaScript, where a native call's fixed cost would exceed the work. Check value: crc32c("123456789") === 0xe3069283.
 */
/** Below this many bytes the JavaScript loop beats the native call's fixed cost (≈ 0.2-0.4 µs). */
const NATIVE_FROM_BYTES = 512;

/** Slicing-by-8 tables: about eight bytes per table round. */
const TABLES: Uint32Array[] = (() => {
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    t0[n] = c >>> 0;
  }
  const tables = [t0];
  for (let s = 1; s < 8; s++) {
    const prev = tables[s - 1]!;
    const t = new Uint32Array(256);
    for (let n = 0; n < 256; n++) t[n] = (prev[n]! >>> 8) ^ t0[prev[n]! & 0xff]!;
    tables.push(t);
  }
  return tables;
})();

const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];

export function crc32c(buf: Uint8Array, start = 0, end = buf.length): number {
  return end - start >= NATIVE_FROM_BYTES ? nativeCrc32c(buf.subarray(start, end)) >>> 0 : crc32cTables(buf, start, end);
}

function crc32cTables(buf: Uint8Array, start: number, end: number): number {
  let crc = 0xffffffff;
  let i = start;
  const fast = end - 8;
  while (i <= fast) {
    crc ^= buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
    crc =
      T7[crc & 0xff]! ^
      T6[(crc >>> 8) & 0xff]! ^
      T5[(crc >>> 16) & 0xff]! ^
      T4[crc >>> 24]! ^
      T3[buf[i + 4]!]! ^
      T2[buf[i + 5]!]! ^
      T1[buf[i + 6]!]! ^
      T0[buf[i + 7]!]!;
    i += 8;
  }
  while (i < end) crc = T0[(crc ^ buf[i++]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
