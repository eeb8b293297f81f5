import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import * as pkcs11js from 'pkcs11js';
import { DeltabrokerError } from '../../errors';

/**
 * One initialised PKCS#11 module per library path, shared by every adapter in the process.
 *
 * A process may C_Initialize a given library once (a second call answers CKR_CRYPTOKI_ALREADY_INITIALIZED,
 * even through a second pkcs11js object, because the library is loaded once), so adapters borrow a
 * reference here and the module is finalised when the last one is returned. Login state is per token and
 * per process as well: the registry remembers a keyed digest of the PIN that logged a slot in, so a second
 * adapter with a wrong PIN is refused instead of riding on the first one's login.
 */
export interface SharedModule {
  readonly lib: pkcs11js.PKCS11;
  readonly modulePath: string;
  /** Checks `pin` against the one that logged `slot` in; undefined when this process has no record. */
  samePinAsLogin(slot: string, pin: string): boolean | undefined;
  recordLogin(slot: string, pin: string): void;
  release(): void;
}

interface Entry {
  lib: pkcs11js.PKCS11;
  refs: number;
  /** False when someone else in the process had already initialised the library: then we never finalise it. */
  ownsInit: boolean;
  logins: Map<string, Buffer>;
}

const modules = new Map<string, Entry>();
const pinKey = randomBytes(32);
const pinDigest = (pin: string): Buffer => createHmac('sha256', pinKey).update(pin, 'utf8').digest();

export function acquireModule(modulePath: string): SharedModule {
  let entry = modules.get(modulePath);
  if (!entry) {
    entry = initialise(modulePath);
    modules.set(modulePath, entry);
  }
  entry.refs++;
  const held = entry;
  let released = false;
  return {
    lib: held.lib,
    modulePath,
    samePinAsLogin(slot, pin) {
      const known = held.logins.get(slot);
      return known === undefined ? undefined : timingSafeEqual(known, pinDigest(pin));
    },
    recordLogin(slot, pin) {
      held.logins.set(slot, pinDigest(pin));
    },
    release() {
      if (released) return;
      released = true;
      held.refs--;
      if (held.refs > 0 || modules.get(modulePath) !== held) return;
      modules.delete(modulePath);
      if (!held.ownsInit) return;
      try {
        held.lib.C_Finalize();
        held.lib.close();
      } catch {
        // finalising a module that is going away anyway
      }
    },
  };
}

function initialise(modulePath: string): Entry {
  const lib = new pkcs11js.PKCS11();
  try {
    lib.load(modulePath);
  } catch (error) {
    throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `could not load the PKCS#11 module ${modulePath}`, { stage: 'hsm' }, { cause: error });
  }
  let ownsInit = true;
  try {
    // OS locking: pkcs11js runs the *Async calls on libuv worker threads, so the module must lock itself.
    lib.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
  } catch (error) {
    if ((error as { code?: unknown }).code === pkcs11js.CKR_CRYPTOKI_ALREADY_INITIALIZED) {
      ownsInit = false;
    } else {
      closeQuietly(lib);
      throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `could not initialise the PKCS#11 module ${modulePath}`, { stage: 'hsm' }, { cause: error });
    }
  }
  return { lib, refs: 0, ownsInit, logins: new Map() };
}

function closeQuietly(lib: pkcs11js.PKCS11): void {
  try {
    lib.close();
  } catch {
    // nothing more to release
  }
}
