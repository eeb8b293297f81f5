import { DeltabrokerError } from '../errors';

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

/** Decodes the payload strictly: Node's Buffer.from silently skips bad characters, we refuse them. */
export function decodePayload(payload: string, encoding: PayloadEncoding): Buffer {
  if (encoding === 'utf8') return Buffer.from(payload, 'utf8');
  const compact = encoding === 'hex' ? payload : payload.replace(/\s+/g, '');
  if (!PATTERNS[encoding].test(compact) || (encoding === 'base64url' && compact.length % 4 === 1)) {
    throw new DeltabrokerError('DB_VALIDATION', `payload is not valid ${encoding}`, {
      field: 'payload',
      rule: `encoding:${encoding}`,
      stage: 'dispatch',
    });
  }
  return Buffer.from(compact, encoding);
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
