import { frame, frameEncoded, HEADER_SIZE, MAGIC_BYTE, unframe } from '../../../src/log/codec/wire';
import { loadSchemas } from '../../../src/log/schemas';

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

  test('a value larger than the encoding buffer is framed whole (the buffer grows), and small ones after it too', () => {
    const schemas = loadSchemas();
    const delta = (payload: string) => ({
      id: 'd-1',
      requestId: null,
      tenant: 'acme',
      entity: 'customer',
      operation: 'create' as const,
      key: 'c-1',
      payload,
      actor: { user: 'u', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: 1,
      expectedVersion: null,
      retryOf: null,
    });
    for (const size of [10, 200_000, 10]) {
      const value = delta('x'.repeat(size));
      const framed = frameEncoded(42, (buf, pos) => schemas.DeltaEnvelope.type.encode(value, buf, pos));
      const result = unframe(framed);
      expect(result).toMatchObject({ ok: true, schemaId: 42 });
      if (result.ok) expect(schemas.DeltaEnvelope.type.fromBuffer(result.payload)).toMatchObject({ payload: value.payload });
      expect(framed.length).toBe(HEADER_SIZE + schemas.DeltaEnvelope.type.toBuffer(value).length);
    }
    const big = Buffer.alloc(300_000, 7);
    expect(unframe(frame(1, big))).toEqual({ ok: true, schemaId: 1, payload: big });
  });
});
