import * as pkcs11js from 'pkcs11js';
import { DeltabrokerError } from '../../errors';
import type { Logger } from '../../logger';

/** The PKCS#11 adapter's options: what they may hold, and the token slot they select in a module. */

type Handle = pkcs11js.Handle;

/**
 * Layout of CK_GCM_PARAMS handed to C_EncryptInit/C_DecryptInit.
 * - `v240`: pkcs11js `CK_PARAMS_AES_GCM_v240`, the v2.40 header struct with `ulIvBits` (set to 96). SoftHSM2.
 * - `v3`:   pkcs11js `CK_PARAMS_GCM`, the v3.0 CK_GCM_PARAMS.
 * In pkcs11js 2.1.7 both produce the same six-field struct with `ulIvBits` filled in; the five-field struct
 * of the v2.40 *document* (no `ulIvBits`, wanted by some older vendor firmware) cannot be built by pkcs11js.
 * pkcs11js's plain `CK_PARAMS_AES_GCM` is avoided: it leaves `ulIvBits` uninitialised.
 */
export type GcmParamsStyle = 'v240' | 'v3';

export interface Pkcs11HsmOptions {
  /** Path of the PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so. */
  modulePath: string;
  /** Label of an initialised token. One of tokenLabel or slot. */
  tokenLabel?: string;
  /** Slot ID (as printed by the vendor tool, e.g. `softhsm2-util --show-slots`). */
  slot?: number | bigint;
  /** User PIN. Kept in memory for re-login after the token drops all sessions; never logged or returned. */
  pin: string;
  gcmParams?: GcmParamsStyle;
  /** Sessions opened at most; calls beyond wait. Keep ≤ UV_THREADPOOL_SIZE (4 by default). */
  maxSessions?: number;
  logger?: Logger;
}

/** Refuses options the adapter cannot open a token with, naming the field. */
export function checkOptions(options: Pkcs11HsmOptions): void {
  const bad = (field: string, message: string) => new DeltabrokerError('DB_VALIDATION', message, { field: `hsm.${field}` });
  if (!options.modulePath) throw bad('modulePath', 'an HSM module path is required');
  if ((options.tokenLabel === undefined) === (options.slot === undefined)) throw bad('tokenLabel', 'give exactly one of tokenLabel or slot');
  if (options.tokenLabel !== undefined && (options.tokenLabel.length === 0 || Buffer.byteLength(options.tokenLabel) > 32)) {
    throw bad('tokenLabel', 'a token label is 1 to 32 bytes');
  }
  if (typeof options.pin !== 'string' || options.pin.length === 0) throw bad('pin', 'an HSM PIN is required');
  if (options.gcmParams !== undefined && options.gcmParams !== 'v240' && options.gcmParams !== 'v3') throw bad('gcmParams', 'gcmParams is v240 or v3');
}

/** The one initialised token the options name, by slot ID or by label. */
export function findSlot(lib: pkcs11js.PKCS11, options: Pkcs11HsmOptions): { slot: Handle; label: string } {
  const matches: { slot: Handle; label: string }[] = [];
  for (const slot of lib.C_GetSlotList(true)) {
    const info = lib.C_GetTokenInfo(slot);
    if ((info.flags & pkcs11js.CKF_TOKEN_INITIALIZED) === 0) continue;
    const label = info.label.trimEnd();
    const wanted = options.slot !== undefined ? slotNumber(slot) === BigInt(options.slot) : label === options.tokenLabel;
    if (wanted) matches.push({ slot, label });
  }
  const which = options.slot !== undefined ? `slot ${options.slot}` : `token "${options.tokenLabel}"`;
  const [match, ...others] = matches;
  if (!match) throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `no initialised HSM ${which} in ${options.modulePath}`, { stage: 'hsm' });
  if (others.length > 0) throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `several HSM tokens match ${which}; choose one by slot`, { stage: 'hsm' });
  return match;
}

export function slotNumber(slot: Handle): bigint {
  return ulong(slot);
}

/** A CK_ULONG as pkcs11js hands it over: little-endian, 8 bytes on 64-bit Unix, 4 on Windows. */
export function ulong(value: Buffer): bigint {
  return value.length >= 8 ? value.readBigUInt64LE(0) : BigInt(value.readUInt32LE(0));
}
