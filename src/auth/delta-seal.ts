import { createHmac, timingSafeEqual } from 'node:crypto';
import type { DeltaEnvelope } from '../log';

/** The record header that marks a delta the service itself published for an authenticated HTTP caller. */
export const DELTA_SEAL_HEADER = 'deltabroker-seal';

/** What the seal's key is derived for from the master key. */
export const DELTA_SEAL_PURPOSE = 'deltabroker delta seal v1';

/** The envelope as one canonical text: keys sorted, absent optional fields as null (as Avro hands them back). */
function canonical(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * An HMAC-SHA-256 over the whole envelope, with a key only service instances hold (derived from the master
 * key). A delta carrying a valid seal was published by the service after it verified the caller's token, so
 * its actor is trusted; anything an outside producer changes (actor, roles, payload) breaks the seal.
 */
export class DeltaSeal {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    this.#key = key;
  }

  seal(delta: DeltaEnvelope): string {
    return createHmac('sha256', this.#key).update(canonical(delta)).digest('base64url');
  }

  verify(delta: DeltaEnvelope, seal: string | undefined): boolean {
    if (seal === undefined) return false;
    const given = Buffer.from(seal, 'base64url');
    const expected = Buffer.from(this.seal(delta), 'base64url');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  toJSON(): string {
    return '[delta seal]';
  }
}
