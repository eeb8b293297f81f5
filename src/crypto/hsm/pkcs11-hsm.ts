import { randomBytes } from 'node:crypto';
import * as pkcs11js from 'pkcs11js';
import { DeltabrokerError, isDeltabrokerError } from '../../errors';
import type { Hsm, HsmCiphertext, HsmKeyInfo } from './hsm-port';
import { ckrName, classify } from './pkcs11-errors';
import { acquireModule, type SharedModule } from './pkcs11-module';
import { PoolClosedError, SessionPool } from './session-pool';
import { checkOptions, findSlot, slotNumber, ulong, type Pkcs11HsmOptions } from './pkcs11-options';

/**
 * The PKCS#11 adapter of the HSM port, on pkcs11js. AES-256-GCM runs inside the module under a sensitive,
 * non-extractable key found by label; nonces are 96 random bits from node:crypto, tags 128 bits.
 * Encrypt/decrypt/keygen use pkcs11js's *Async calls (libuv worker threads), so the event loop stays free;
 * the cheap bookkeeping calls (Init, FindObjects, GetAttributeValue) are synchronous.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const MAX_KEYS_PER_LABEL = 16;
const CKF_TOKEN_PRESENT = 0x1;
const CKS_RO_USER_FUNCTIONS = 1;
const CKS_RW_USER_FUNCTIONS = 3;
/** pkcs11js hands a zero-length Buffer over as a NULL pointer, which modules refuse; a view into a live buffer is not NULL. */
const EMPTY = Buffer.alloc(1).subarray(0, 0);

type Handle = pkcs11js.Handle;

export async function openPkcs11Hsm(options: Pkcs11HsmOptions): Promise<Hsm> {
  checkOptions(options);
  const module = acquireModule(options.modulePath);
  try {
    const { slot, label } = findSlot(module.lib, options);
    const hsm = new Pkcs11Hsm(module, slot, label, options);
    await hsm.start();
    options.logger?.info(
      { modulePath: options.modulePath, token: label, slot: slotNumber(slot).toString(), gcmParams: options.gcmParams ?? 'v240' },
      'hsm opened',
    );
    return hsm;
  } catch (error) {
    module.release();
    throw withoutPin(error, options.pin);
  }
}

class Pkcs11Hsm implements Hsm {
  #pin: string;
  private readonly lib: pkcs11js.PKCS11;
  private readonly pool: SessionPool<Handle>;
  private readonly handles = new Map<string, Handle>();
  private readonly creating = new Map<string, Promise<void>>();
  private readonly slotKey: string;
  private readonly gcmParamsType: number;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly module: SharedModule,
    private readonly slot: Handle,
    private readonly tokenLabel: string,
    private readonly options: Pkcs11HsmOptions,
  ) {
    this.#pin = options.pin;
    this.lib = module.lib;
    this.slotKey = slot.toString('hex');
    this.gcmParamsType = options.gcmParams === 'v3' ? pkcs11js.CK_PARAMS_GCM : pkcs11js.CK_PARAMS_AES_GCM_v240;
    this.pool = new SessionPool<Handle>({
      max: options.maxSessions ?? 4,
      open: () => this.openSession(),
      close: (session) => this.lib.C_CloseSession(session),
    });
  }

  /** Opens the first session, which logs in: a wrong PIN fails here, not on first use. */
  async start(): Promise<void> {
    await this.pool.use(
      async () => undefined,
      () => true,
    );
  }

  ensureKey(label: string): Promise<void> {
    checkLabel(label);
    const pending = this.creating.get(label);
    if (pending) return pending;
    const run = this.session('ensureKey', async (session) => {
      if (this.findKey(session, label)) return;
      const mechanism = { mechanism: pkcs11js.CKM_AES_KEY_GEN };
      await this.lib.C_GenerateKeyAsync(session, mechanism, keyTemplate(label));
      // Find again rather than keep the new handle: if another process raced us, everyone settles on one key.
      this.handles.delete(label);
      if (!this.findKey(session, label)) throw new DeltabrokerError('DB_INTERNAL', `the HSM did not keep key "${label}"`, { stage: 'hsm' });
      this.options.logger?.info({ hsmLabel: label }, 'hsm key created');
    }).finally(() => this.creating.delete(label));
    this.creating.set(label, run);
    return run;
  }

  async hasKey(label: string): Promise<boolean> {
    checkLabel(label);
    return this.session('hasKey', async (session) => this.findKey(session, label) !== undefined);
  }

  async describeKey(label: string): Promise<HsmKeyInfo | null> {
    checkLabel(label);
    return this.session('describeKey', async (session) => {
      const key = this.findKey(session, label);
      if (!key) return null;
      const read = (type: number): Buffer | undefined => {
        try {
          const value = this.lib.C_GetAttributeValue(session, key, [{ type }])[0]?.value;
          return Buffer.isBuffer(value) ? value : undefined;
        } catch {
          return undefined;
        }
      };
      const flag = (type: number): boolean | undefined => {
        const value = read(type);
        return value && value.length > 0 ? value[0] !== 0 : undefined;
      };
      const length = read(pkcs11js.CKA_VALUE_LEN);
      return {
        label,
        bits: length ? Number(ulong(length)) * 8 : undefined,
        sensitive: flag(pkcs11js.CKA_SENSITIVE) === true,
        extractable: flag(pkcs11js.CKA_EXTRACTABLE) !== false,
        alwaysSensitive: flag(pkcs11js.CKA_ALWAYS_SENSITIVE),
        neverExtractable: flag(pkcs11js.CKA_NEVER_EXTRACTABLE),
      };
    });
  }

  async encrypt(label: string, plaintext: Buffer, aad: Buffer): Promise<HsmCiphertext> {
    checkLabel(label);
    return this.withKey('encrypt', label, async (session, key) => {
      const iv = randomBytes(IV_BYTES);
      this.lib.C_EncryptInit(session, this.mechanism(iv, aad), key);
      const out = Buffer.alloc(plaintext.length + TAG_BYTES);
      const ciphertext = await this.lib.C_EncryptAsync(session, nonNull(plaintext), out);
      if (ciphertext.length !== plaintext.length + TAG_BYTES) {
        throw new DeltabrokerError('DB_INTERNAL', `the HSM returned ${ciphertext.length} bytes for ${plaintext.length}`, { stage: 'hsm' });
      }
      return { iv, ciphertext };
    });
  }

  async decrypt(label: string, sealed: HsmCiphertext, aad: Buffer): Promise<Buffer> {
    checkLabel(label);
    if (sealed.iv.length !== IV_BYTES || sealed.ciphertext.length < TAG_BYTES) {
      throw new DeltabrokerError('DB_DECRYPT_FAILED', 'HSM ciphertext is malformed', { stage: 'hsm', rule: 'format' });
    }
    return this.withKey('decrypt', label, async (session, key) => {
      this.lib.C_DecryptInit(session, this.mechanism(sealed.iv, aad), key);
      const out = Buffer.alloc(sealed.ciphertext.length);
      try {
        return await this.lib.C_DecryptAsync(session, sealed.ciphertext, out);
      } catch (error) {
        if (classify(error) !== 'other') throw error;
        // Tag mismatch (SoftHSM2 answers CKR_GENERAL_ERROR, others CKR_ENCRYPTED_DATA_INVALID): the operation is over.
        throw new DeltabrokerError('DB_DECRYPT_FAILED', 'HSM ciphertext failed authentication', { stage: 'hsm', rule: 'integrity' });
      }
    });
  }

  async ping(): Promise<void> {
    await this.session('ping', async (session) => {
      const state = this.lib.C_GetSessionInfo(session).state;
      if (state !== CKS_RO_USER_FUNCTIONS && state !== CKS_RW_USER_FUNCTIONS) {
        throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `HSM session on token "${this.tokenLabel}" is not logged in`, { stage: 'hsm' });
      }
      if ((this.lib.C_GetSlotInfo(this.slot).flags & CKF_TOKEN_PRESENT) === 0) {
        throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `HSM token "${this.tokenLabel}" is not present`, { stage: 'hsm' });
      }
    });
  }

  close(): Promise<void> {
    this.closing ??= this.pool.close().finally(() => {
      this.handles.clear();
      this.#pin = '';
      this.module.release();
    });
    return this.closing;
  }

  // ---- sessions, login, keys

  private openSession(): Handle {
    const session = this.lib.C_OpenSession(this.slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    try {
      this.login(session);
    } catch (error) {
      this.lib.C_CloseSession(session);
      throw error;
    }
    return session;
  }

  /** Login is per token for the whole process: the first session logs in, later ones find it done. */
  private login(session: Handle): void {
    const state = this.lib.C_GetSessionInfo(session).state;
    if (state === CKS_RO_USER_FUNCTIONS || state === CKS_RW_USER_FUNCTIONS) return this.checkSharedLogin();
    try {
      this.lib.C_Login(session, pkcs11js.CKU_USER, this.#pin);
    } catch (error) {
      if (ckrName(error) === 'CKR_USER_ALREADY_LOGGED_IN') return this.checkSharedLogin();
      throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `login to HSM token "${this.tokenLabel}" failed (${ckrName(error) ?? 'unknown error'})`, {
        stage: 'hsm',
        ckr: ckrName(error),
      });
    }
    this.module.recordLogin(this.slotKey, this.#pin);
  }

  private checkSharedLogin(): void {
    if (this.module.samePinAsLogin(this.slotKey, this.#pin) === false) {
      throw new DeltabrokerError('DB_HSM_UNAVAILABLE', `login to HSM token "${this.tokenLabel}" failed (CKR_PIN_INCORRECT)`, {
        stage: 'hsm',
        ckr: 'CKR_PIN_INCORRECT',
      });
    }
  }

  /** The key handle for a label, from the cache or the token; several keys with one label → lowest CKA_ID wins. */
  private findKey(session: Handle, label: string): Handle | undefined {
    const cached = this.handles.get(label);
    if (cached) return cached;
    this.lib.C_FindObjectsInit(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
      { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
      { type: pkcs11js.CKA_TOKEN, value: true },
      { type: pkcs11js.CKA_LABEL, value: label },
    ]);
    let found: Handle[];
    try {
      found = this.lib.C_FindObjects(session, MAX_KEYS_PER_LABEL);
    } finally {
      this.lib.C_FindObjectsFinal(session);
    }
    if (found.length > 1) {
      const idOf = (key: Handle): string => {
        const value = this.lib.C_GetAttributeValue(session, key, [{ type: pkcs11js.CKA_ID }])[0]?.value;
        return Buffer.isBuffer(value) ? value.toString('hex') : '';
      };
      found = found
        .map((key) => ({ key, id: idOf(key) }))
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((k) => k.key);
    }
    const key = found[0];
    if (key) this.handles.set(label, key);
    return key;
  }

  private mechanism(iv: Buffer, aad: Buffer): pkcs11js.Mechanism {
    const parameter: pkcs11js.AesGCM = { type: this.gcmParamsType, iv, ivBits: IV_BYTES * 8, tagBits: TAG_BYTES * 8 };
    if (aad.length > 0) parameter.aad = aad;
    return { mechanism: pkcs11js.CKM_AES_GCM, parameter };
  }

  // ---- running calls

  /** A keyed operation: unknown label → DB_UNKNOWN_KEY. */
  private withKey<T>(op: string, label: string, run: (session: Handle, key: Handle) => Promise<T>): Promise<T> {
    return this.session(op, async (session) => {
      const key = this.findKey(session, label);
      if (!key) throw new DeltabrokerError('DB_UNKNOWN_KEY', `no HSM key labelled "${label}"`, { stage: 'hsm', hsmLabel: label });
      return run(session, key);
    });
  }

  /**
   * Borrows a session for `run` and turns what escapes into catalogue errors. The session goes back to the
   * pool after a clean result or a refusal we raised ourselves (unknown key, failed tag); after any other
   * PKCS#11 failure its operation state is unknown, so it is closed and replaced.
   */
  private async session<T>(op: string, run: (session: Handle) => Promise<T>): Promise<T> {
    if (this.closing) throw closedError();
    const keep = (error: unknown) => isDeltabrokerError(error) && error.code !== 'DB_HSM_UNAVAILABLE';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.pool.use(run, keep);
      } catch (error) {
        // A cached key handle went stale (key destroyed or re-created outside): forget handles, look up once more.
        if (classify(error) === 'stale-handle' && attempt === 1) {
          this.handles.clear();
          continue;
        }
        throw this.translate(op, error);
      }
    }
  }

  private translate(op: string, error: unknown): unknown {
    if (isDeltabrokerError(error)) return error;
    if (error instanceof PoolClosedError) return closedError();
    const ckr = ckrName(error);
    if (classify(error) === 'unavailable' || ckr === undefined) {
      this.options.logger?.warn({ op, ckr, token: this.tokenLabel }, 'hsm call failed');
      return new DeltabrokerError('DB_HSM_UNAVAILABLE', `HSM ${op} failed (${ckr ?? 'module error'})`, { stage: 'hsm', ckr }, { cause: error });
    }
    return new DeltabrokerError('DB_INTERNAL', `HSM ${op} failed (${ckr})`, { stage: 'hsm', ckr }, { cause: error });
  }
}

const closedError = () => new DeltabrokerError('DB_HSM_UNAVAILABLE', 'the HSM adapter is closed', { stage: 'hsm' });
const nonNull = (data: Buffer): Buffer => (data.length === 0 ? EMPTY : data);

function keyTemplate(label: string): pkcs11js.Template {
  return [
    { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_SECRET_KEY },
    { type: pkcs11js.CKA_KEY_TYPE, value: pkcs11js.CKK_AES },
    { type: pkcs11js.CKA_VALUE_LEN, value: KEY_BYTES },
    { type: pkcs11js.CKA_TOKEN, value: true },
    { type: pkcs11js.CKA_PRIVATE, value: true },
    { type: pkcs11js.CKA_SENSITIVE, value: true },
    { type: pkcs11js.CKA_EXTRACTABLE, value: false },
    { type: pkcs11js.CKA_MODIFIABLE, value: false },
    { type: pkcs11js.CKA_ENCRYPT, value: true },
    { type: pkcs11js.CKA_DECRYPT, value: true },
    { type: pkcs11js.CKA_WRAP, value: false },
    { type: pkcs11js.CKA_UNWRAP, value: false },
    { type: pkcs11js.CKA_SIGN, value: false },
    { type: pkcs11js.CKA_VERIFY, value: false },
    { type: pkcs11js.CKA_DERIVE, value: false },
    { type: pkcs11js.CKA_LABEL, value: label },
    { type: pkcs11js.CKA_ID, value: randomBytes(16) },
  ];
}

function checkLabel(label: string): void {
  if (typeof label !== 'string' || label.length === 0 || Buffer.byteLength(label) > 255) {
    throw new DeltabrokerError('DB_VALIDATION', 'an HSM key label is 1 to 255 bytes', { field: 'hsmLabel' });
  }
}

/** Belt and braces: no message we raise contains the PIN, and this makes sure of it. */
function withoutPin(error: unknown, pin: string): unknown {
  if (!(error instanceof Error) || !pin || !error.message.includes(pin)) return error;
  const code = isDeltabrokerError(error) ? error.code : 'DB_HSM_UNAVAILABLE';
  return new DeltabrokerError(code, error.message.split(pin).join('[redacted]'), { stage: 'hsm' });
}
