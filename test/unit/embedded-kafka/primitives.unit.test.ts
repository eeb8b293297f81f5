import { randomBytes } from 'node:crypto';
import { crc32c } from '../../../src/embedded/kafka/protocol/crc32c';
import { MalformedFrameError } from '../../../src/embedded/kafka/protocol/errors';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';

const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C') as (b: Buffer) => number;

describe('CRC-32C', () => {
  test('check value of "123456789" is 0xE3069283 (Castagnoli, not CRC-32/IEEE)', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  test('empty input and sub-ranges', () => {
    expect(crc32c(Buffer.alloc(0))).toBe(0);
    const b = Buffer.from('xx123456789yy');
    expect(crc32c(b, 2, 11)).toBe(0xe3069283);
  });

  test.each([1, 7, 8, 9, 63, 511, 512, 513, 4096, 100_003])(
    'agrees with kafkajs on %i random bytes (the JavaScript loop below 512, native code from there)',
    (n) => {
      const b = randomBytes(n);
      expect(crc32c(b)).toBe(kafkajsCrc32c(b) >>> 0);
    },
  );

  test('a long sub-range (native code) equals the CRC of those bytes alone', () => {
    const b = randomBytes(40_000);
    expect(crc32c(b, 21, 39_000)).toBe(kafkajsCrc32c(b.subarray(21, 39_000)) >>> 0);
  });
});

describe('Reader and Writer', () => {
  test('fixed-width integers, big-endian, exact bytes', () => {
    const buf = new Writer()
      .int8(-1)
      .int16(0x1234)
      .int32(-2)
      .uint32(0xfffffffe)
      .int64(-1)
      .int64(2 ** 40 + 5)
      .bool(true)
      .toBuffer();
    expect(buf.toString('hex')).toBe('ff' + '1234' + 'fffffffe' + 'fffffffe' + 'ffffffffffffffff' + '0000010000000005' + '01');
    const r = new Reader(buf);
    expect([r.int8(), r.int16(), r.int32(), r.uint32(), r.int64(), r.int64(), r.bool()]).toEqual([-1, 0x1234, -2, 0xfffffffe, -1, 2 ** 40 + 5, true]);
    expect(r.remaining).toBe(0);
  });

  test('strings, bytes and arrays, nullable and not', () => {
    const buf = new Writer()
      .string('hé')
      .nullableString(null)
      .bytes(Buffer.from([1, 2]))
      .nullableBytes(null)
      .array([1, 2], (w, x) => w.int32(x))
      .nullableArray(null, (w, x: number) => w.int32(x))
      .toBuffer();
    expect(buf.toString('hex')).toBe('0003' + '68c3a9' + 'ffff' + '00000002' + '0102' + 'ffffffff' + '00000002' + '00000001' + '00000002' + 'ffffffff');
    const r = new Reader(buf);
    expect(r.string()).toBe('hé');
    expect(r.nullableString()).toBeNull();
    expect(r.bytes()).toEqual(Buffer.from([1, 2]));
    expect(r.nullableBytes()).toBeNull();
    expect(r.array((r) => r.int32())).toEqual([1, 2]);
    expect(r.nullableArray((r) => r.int32())).toBeNull();
  });

  test.each([
    [0, '00'],
    [-1, '01'],
    [1, '02'],
    [-64, '7f'],
    [64, '8001'],
    [300, 'd804'],
    [-2147483648, 'ffffffff0f'],
    [1700000000000, '80a0abfef962'],
  ])('zigzag varint %i is %s', (value, bytes) => {
    const buf = new Writer().varint(value).toBuffer();
    expect(buf.toString('hex')).toBe(bytes);
    expect(new Reader(buf).varint()).toBe(value);
  });

  test('unsigned varints (flexible versions) are not zigzag', () => {
    expect(new Writer().uvarint(1).toBuffer().toString('hex')).toBe('01');
    expect(new Reader(Buffer.from('ac02', 'hex')).uvarint()).toBe(300);
  });

  test('a varint ends inside its reader: its bytes, at most ten of them, and the reader moves past them', () => {
    const reader = new Reader(Buffer.from('7f8001ff', 'hex'), 0, 3);
    expect([reader.uvarint(), reader.uvarint(), reader.offset]).toEqual([127, 128, 3]);
    expect(() => reader.uvarint()).toThrow(MalformedFrameError); // the byte beyond `end` is not read
    expect(() => new Reader(Buffer.from('80', 'hex')).uvarint()).toThrow(MalformedFrameError);
    expect(new Reader(Buffer.from('80808080808080808001', 'hex')).uvarint()).toBe(2 ** 63);
    expect(() => new Reader(Buffer.from('8080808080808080808001', 'hex')).uvarint()).toThrow('varint too long');
  });

  test('reads past the end or lying lengths are MalformedFrameError', () => {
    expect(() => new Reader(Buffer.from([0, 5, 0x61])).string()).toThrow(MalformedFrameError);
    expect(() => new Reader(Buffer.from([0, 0, 0])).int32()).toThrow(MalformedFrameError);
    expect(() => new Reader(Buffer.from('7fffffff00', 'hex')).array((r) => r.int8())).toThrow(MalformedFrameError);
    expect(() => new Reader(Buffer.from([0xff, 0xff])).string()).toThrow(MalformedFrameError);
  });

  test('large buffers are passed by reference, small ones copied', () => {
    const big = Buffer.alloc(4096, 1);
    const w = new Writer().int32(big.length).raw(big).int8(7);
    const chunks = w.toChunks();
    expect(chunks).toContain(big);
    expect(w.length).toBe(4 + 4096 + 1);
    expect(Buffer.concat(chunks).readInt8(4100)).toBe(7);
  });
});
