import { additionalData, formatCiphertext, parseCiphertext } from '../../../src/crypto/ciphertext';
import { resolveMethod } from '../../../src/crypto/methods';
import { decodePayload, encodePayload } from '../../../src/crypto/payload-encoding';
import { DeltabrokerError } from '../../../src/errors';

describe('ciphertext format', () => {
  const sealed = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz');

  test.each([
    [{ kind: 'default' as const }, 'aes256skv1:default:v3:'],
    [{ kind: 'alias' as const, alias: 'payments' }, 'aes256skv1:alias.payments:v3:'],
    [{ kind: 'session' as const, sessionId: 'abc_DEF-1' }, 'aes256skv1:session.abc_DEF-1:v3:'],
  ])('round-trips key ref %j', (keyRef, prefix) => {
    const text = formatCiphertext({ method: 'aes256skv1', keyRef, version: 3, sealed });
    expect(text.startsWith(prefix)).toBe(true);
    expect(parseCiphertext(text)).toEqual({ method: 'aes256skv1', keyRef, version: 3, sealed });
  });

  test.each([
    'hello',
    'aes:default:v1:AAAA',
    'aes256skv1:default:v0:AAAA',
    'aes256skv1:default:1:AAAA',
    'aes256skv1:other.x:v1:AAAA',
    'aes256skv1:alias.:v1:AAAA',
    'aes256skv1:default:v1:AA+A',
    'aes256skv1:default:v1:AAAA:extra',
  ])('refuses %s', (text) => {
    expect(() => parseCiphertext(text)).toThrow(DeltabrokerError);
  });

  test('additional data binds the header and the tenant', () => {
    const a = additionalData('hsmv1', { kind: 'default' }, 1, 'acme');
    expect(a.toString()).toBe('hsmv1:default:v1|acme');
    expect(a.equals(additionalData('hsmv1', { kind: 'default' }, 1, 'globex'))).toBe(false);
  });
});

describe('methods', () => {
  test('aliases resolve to the explicit method', () => {
    expect(resolveMethod('aes').name).toBe('aes256skv1');
    expect(resolveMethod('hsm').name).toBe('hsmv1');
    expect(resolveMethod('hsmv1').family).toBe('hsm');
  });
  test('unknown names are refused naming the field', () => {
    expect(() => resolveMethod('toString')).toThrow(
      expect.objectContaining({ code: 'DB_UNKNOWN_METHOD', details: expect.objectContaining({ field: 'dispatch.method' }) }),
    );
  });
});

describe('payload encodings', () => {
  test.each([
    ['base64', 'AP8B/g=='],
    ['base64url', 'AP8B_g'],
    ['hex', '00ff01fe'],
  ] as const)('%s decodes strictly and encodes back', (encoding, text) => {
    const bytes = decodePayload(text, encoding);
    expect([...bytes]).toEqual([0, 255, 1, 254]);
    expect(encodePayload(bytes, encoding)).toBe(text);
  });

  test.each([
    ['base64', 'AP8B/g='],
    ['base64', 'A*8B'],
    ['base64url', 'AP8+'],
    ['hex', '0g'],
    ['hex', 'abc'],
  ] as const)('refuses bad %s %s', (encoding, text) => {
    expect(() => decodePayload(text, encoding)).toThrow(expect.objectContaining({ details: expect.objectContaining({ field: 'payload' }) }));
  });

  test('utf8 output refuses bytes that are not UTF-8', () => {
    expect(() => encodePayload(Buffer.from([0xff, 0xfe]), 'utf8')).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'dispatch.encoding' }) }),
    );
  });
});
