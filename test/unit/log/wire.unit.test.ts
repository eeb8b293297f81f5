import { frame, HEADER_SIZE, MAGIC_BYTE, unframe } from '../../../src/log/codec/wire';

describe('Confluent wire format framing', () => {
  test('frame writes magic byte 0 and the schema id big-endian before the Avro bytes', () => {
    const bytes = frame(0x01020304, Buffer.from([0xaa, 0xbb]));
    expect([...bytes]).toEqual([0x00, 0x01, 0x02, 0x03, 0x04, 0xaa, 0xbb]);
    expect(MAGIC_BYTE).toBe(0);
    expect(HEADER_SIZE).toBe(5);
  });

  test('unframe answers the schema id and the payload', () => {
    const result = unframe(Buffer.from([0, 0, 0, 0, 42, 2, 104, 105]));
    expect(result).toEqual({ ok: true, schemaId: 42, payload: Buffer.from([2, 104, 105]) });
  });

  test('a header with no payload is framed correctly (an empty Avro record)', () => {
    expect(unframe(frame(7, Buffer.alloc(0)))).toEqual({ ok: true, schemaId: 7, payload: Buffer.alloc(0) });
  });

  test.each([
    ['null', null, 'DECODE_EMPTY_VALUE'],
    ['empty', Buffer.alloc(0), 'DECODE_EMPTY_VALUE'],
    ['wrong magic byte', Buffer.from([1, 0, 0, 0, 1, 0]), 'DECODE_MAGIC_BYTE'],
    ['plain JSON text', Buffer.from('{"id":"x"}'), 'DECODE_MAGIC_BYTE'],
    ['header cut short', Buffer.from([0, 0, 1]), 'DECODE_MAGIC_BYTE'],
  ])('%s is refused with %s, never thrown', (_name, bytes, reason) => {
    expect(unframe(bytes)).toMatchObject({ ok: false, reason });
  });

  test.each([-1, 2 ** 31, 1.5])('schema id %p cannot be framed', (id) => {
    expect(() => frame(id, Buffer.alloc(0))).toThrow(RangeError);
  });
});
