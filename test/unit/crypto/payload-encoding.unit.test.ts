/** Payload encodings are decoded strictly, as docs/http-api.md says: nothing is skipped or silently replaced. */
import { decodePayload } from '../../../src/crypto/payload-encoding';

const refusal = (payload: string, encoding: Parameters<typeof decodePayload>[1]) => {
  try {
    decodePayload(payload, encoding);
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${JSON.stringify(payload)} to be refused as ${encoding}`);
};

describe('decodePayload', () => {
  test.each([
    ['AP8B/g==', 'base64', [0, 255, 1, 254]],
    ['AP8B_g', 'base64url', [0, 255, 1, 254]],
    ['00ff01FE', 'hex', [0, 255, 1, 254]],
    ['', 'base64', []],
  ] as const)('decodes %j as %s', (payload, encoding, bytes) => {
    expect([...decodePayload(payload, encoding)]).toEqual(bytes);
  });

  test.each(['AP8B\n/g==', 'AP8B /g==', ' AP8B/g==', 'AP8B/g==\r\n', 'AP8B\t/g==', 'AP8B/g=', 'AP8B/g', 'AP8B-g=='])(
    'refuses base64 %j (whitespace, line breaks, padding, alphabet)',
    (payload) => {
      expect(refusal(payload, 'base64')).toMatchObject({ code: 'DB_VALIDATION', details: { field: 'payload', rule: 'encoding:base64', stage: 'dispatch' } });
    },
  );

  test.each([
    ['AP8B_g\n', 'base64url'],
    ['AP8B+g', 'base64url'],
    ['A', 'base64url'],
    ['00 ff', 'hex'],
    ['0', 'hex'],
    ['zz', 'hex'],
  ] as const)('refuses %j as %s', (payload, encoding) => {
    expect(refusal(payload, encoding)).toMatchObject({ code: 'DB_VALIDATION', details: { rule: `encoding:${encoding}` } });
  });

  test('refuses a lone surrogate in UTF-8 text instead of encrypting U+FFFD; a pair is one character', () => {
    for (const payload of ['\ud800', 'a\udc00b', '\udbff\ud800']) {
      expect(refusal(payload, 'utf8')).toMatchObject({ code: 'DB_VALIDATION', details: { field: 'payload', rule: 'utf16' } });
    }
    expect(decodePayload('\ud83d\ude00', 'utf8').toString('hex')).toBe('f09f9880');
  });
});
