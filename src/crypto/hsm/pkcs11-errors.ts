import * as pkcs11js from 'pkcs11js';

/**
 * Sorting PKCS#11 return values by what the caller can do about them. Decisions are made on the CKR code that
 * pkcs11js parses out of the native error, never on message text.
 */

/** The module, token, session or login is gone: retriable once the HSM is back. */
const UNAVAILABLE = new Set<number>([
  pkcs11js.CKR_DEVICE_ERROR,
  pkcs11js.CKR_DEVICE_MEMORY,
  pkcs11js.CKR_DEVICE_REMOVED,
  pkcs11js.CKR_TOKEN_NOT_PRESENT,
  pkcs11js.CKR_TOKEN_NOT_RECOGNIZED,
  pkcs11js.CKR_SESSION_CLOSED,
  pkcs11js.CKR_SESSION_COUNT,
  pkcs11js.CKR_SESSION_HANDLE_INVALID,
  pkcs11js.CKR_USER_NOT_LOGGED_IN,
  pkcs11js.CKR_CRYPTOKI_NOT_INITIALIZED,
  pkcs11js.CKR_HOST_MEMORY,
]);

/** The cached key handle no longer names an object: look the label up again. */
const STALE_HANDLE = new Set<number>([pkcs11js.CKR_KEY_HANDLE_INVALID, pkcs11js.CKR_OBJECT_HANDLE_INVALID]);

export type Pkcs11Failure = 'unavailable' | 'stale-handle' | 'other';

/** The CKR code of a pkcs11js error, or undefined for anything else (TypeError, NativeError without code). */
export function ckrCode(error: unknown): number | undefined {
  if (error instanceof Error && error.name === 'Pkcs11Error') {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'number' && code !== 0 ? code : undefined;
  }
  return undefined;
}

/** The CKR name (e.g. `CKR_PIN_INCORRECT`) for messages and details; never holds caller data. */
export function ckrName(error: unknown): string | undefined {
  const code = ckrCode(error);
  if (code === undefined) return undefined;
  const match = /^CKR_[A-Z0-9_]+$/.exec((error as Error).message);
  return match ? match[0] : `CKR_0x${code.toString(16)}`;
}

export function classify(error: unknown): Pkcs11Failure {
  const code = ckrCode(error);
  if (code === undefined) return 'other';
  if (UNAVAILABLE.has(code)) return 'unavailable';
  if (STALE_HANDLE.has(code)) return 'stale-handle';
  return 'other';
}
