import { DeltabrokerError } from '../errors';
import { isWellFormed } from '../text/well-formed';

/** Encodings a payload may be sent in (seed 2.1: absent means UTF-8 text). */
export const PAYLOAD_ENCODINGS = ['utf8', 'base64', 'base64url', 'hex'] as const;
export type PayloadEncoding = (typeof PAYLOAD_ENCODINGS)[number];

const PATTERNS: Record<Exclude<PayloadEncoding, 'utf8'>, RegExp> = {
  base64: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  base64url: /^[A-Za-z0-9_-]*$/,
  hex: /^(?:[0-9a-fA-F]{2})*$/,
};

export function parseEncoding(value: unknown): PayloadEncoding {
  if (value === undefined) return 'utf8';
  if (typeof value === 'string' && (PAYLOAD_ENCODINGS as readonly string[]).includes(value)) return value as PayloadEncoding;
  throw new DeltabrokerError('DB_VALIDATION', `dispatch.encoding must be one of ${PAYLOAD_ENCODINGS.join(', ')}`, {
    field: 'dispatch.encoding',
    rule: 'enum',
    stage: 'dispatch',
  });
}

/**
 * Decodes the payload strictly: Node's Buffer.from silently skips bad characters (whitespace and line breaks
 * included) and turns a lone surrogate into U+FFFD; we refuse both.
 */
export function decodePayload(payload: string, encoding: PayloadEncoding): Buffer {
  if (encoding === 'utf8') {
    if (!isWellFormed(payload)) {
      throw new DeltabrokerError('DB_VALIDATION', 'payload holds a lone UTF-16 surrogate, which no UTF-8 text can carry', {
        field: 'payload',
        rule: 'utf16',
        stage: 'dispatch',
      });
    }
    return Buffer.from(payload, 'utf8');
  }
  if (!PATTERNS[encoding].test(payload) || (encoding === 'base64url' && payload.length % 4 === 1)) {
    throw new DeltabrokerError('DB_VALIDATION', `payload is not valid ${encoding}: only its alphabet is allowed, no whitespace or line breaks`, {
      field: 'payload',
      rule: `encoding:${encoding}`,
      stage: 'dispatch',
    });
  }
  return Buffer.from(payload, encoding);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function encodePayload(bytes: Buffer, encoding: PayloadEncoding): string {
  if (encoding !== 'utf8') return bytes.toString(encoding);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new DeltabrokerError('DB_VALIDATION', 'the plaintext is not UTF-8 text; ask again with dispatch.encoding base64', {
      field: 'dispatch.encoding',
      rule: 'utf8',
      stage: 'dispatch',
    });
  }
}
