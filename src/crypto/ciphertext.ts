import { DeltabrokerError } from '../errors';
import { isExplicitMethod } from './methods';

/**
 * Self-describing ciphertext: `<explicit method>:<key ref>:v<version>:<base64url(nonce ‖ ciphertext ‖ tag)>`.
 * The header (everything before the last colon) and the tenant are bound as GCM additional data, so nobody can
 * swap method, key, version or tenant without decryption failing.
 *
 * Key refs: `default` (the tenant's default key), `alias.<name>` (a CRYPTO_CONFIG HSM key alias),
 * `session.<id>` (a session data key), `subject.<id>` (the data key of one data subject, see subject-keys.ts).
 */
export type KeyRef = { kind: 'default' } | { kind: 'alias'; alias: string } | { kind: 'session'; sessionId: string } | { kind: 'subject'; subject: string };

export interface Ciphertext {
  method: string;
  keyRef: KeyRef;
  version: number;
  sealed: Buffer;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function keyRefToString(ref: KeyRef): string {
  switch (ref.kind) {
    case 'default':
      return 'default';
    case 'alias':
      return `alias.${ref.alias}`;
    case 'session':
      return `session.${ref.sessionId}`;
    case 'subject':
      return `subject.${ref.subject}`;
  }
}

function parseKeyRef(text: string): KeyRef | undefined {
  if (text === 'default') return { kind: 'default' };
  const dot = text.indexOf('.');
  const kind = text.slice(0, dot);
  const name = text.slice(dot + 1);
  if (dot < 0 || !NAME.test(name)) return undefined;
  if (kind === 'alias') return { kind: 'alias', alias: name };
  if (kind === 'session') return { kind: 'session', sessionId: name };
  if (kind === 'subject') return { kind: 'subject', subject: name };
  return undefined;
}

export const isValidKeyName = (name: string): boolean => NAME.test(name);

export function header(method: string, ref: KeyRef, version: number): string {
  return `${method}:${keyRefToString(ref)}:v${version}`;
}

export function additionalData(method: string, ref: KeyRef, version: number, tenant: string): Buffer {
  return Buffer.from(`${header(method, ref, version)}|${tenant}`, 'utf8');
}

export function formatCiphertext(c: Ciphertext): string {
  return `${header(c.method, c.keyRef, c.version)}:${c.sealed.toString('base64url')}`;
}

/** Parses a ciphertext string; refuses anything this service could not have produced. */
export function parseCiphertext(text: string, field = 'payload'): Ciphertext {
  const refuse = (why: string): never => {
    throw new DeltabrokerError('DB_VALIDATION', `not a deltabroker ciphertext: ${why}`, { field, rule: 'ciphertext-format' });
  };
  const parts = text.split(':');
  if (parts.length !== 4) return refuse('expected <method>:<key>:v<version>:<data>');
  const [method, ref, version, data] = parts as [string, string, string, string];
  if (!isExplicitMethod(method)) return refuse(`unknown method '${method.slice(0, 32)}'`);
  const keyRef = parseKeyRef(ref) ?? refuse('bad key reference');
  if (!/^v[1-9][0-9]{0,8}$/.test(version)) return refuse('bad key version');
  if (!BASE64URL.test(data)) return refuse('data is not base64url');
  return { method, keyRef, version: Number(version.slice(1)), sealed: Buffer.from(data, 'base64url') };
}
