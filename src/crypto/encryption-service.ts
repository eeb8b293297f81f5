import { DeltabrokerError } from '../errors';
import { openAesGcm, sealAesGcm } from './aes-gcm';
import { additionalData, formatCiphertext, keyRefToString, parseCiphertext, type KeyRef } from './ciphertext';
import type { Hsm } from './hsm/hsm-port';
import type { KeyAliases } from './key-aliases';
import type { Keyring, KeyVersion } from './keyring';
import { newestMethod, resolveMethod, type MethodSpec } from './methods';
import { decodePayload, encodePayload, type PayloadEncoding } from './payload-encoding';
import type { SessionInfo, SessionStore } from './sessions';
import { checkSubjectId, type SubjectKeys } from './subject-keys';

export interface Caller {
  tenant: string;
  user: string;
}

export interface EncryptCommand {
  method: string;
  encoding: PayloadEncoding;
  sessionId?: string;
  keyAlias?: string;
  /** A data subject's id: the payload is sealed under that subject's key (`subject.<id>`). */
  subject?: string;
  payload: string;
}

export interface CiphertextResult {
  ciphertext: string;
  method: string;
  keyRef: string;
  keyVersion: number;
}

export interface DecryptResult {
  payload: string;
  encoding: PayloadEncoding;
  method: string;
  keyVersion: number;
}

/** Where the bytes of one key version are: in memory (software) or behind a label in the HSM. */
type SealingKey = { family: 'aes'; material: Buffer } | { family: 'hsm'; hsmLabel: string };

/**
 * The encryption dispatch: encrypt, decrypt, rewrap and sessions over the keyring, sessions, CRYPTO_CONFIG
 * aliases and the HSM. Knows nothing of HTTP.
 */
export class EncryptionService {
  constructor(
    private readonly keyring: Keyring,
    private readonly sessions: SessionStore,
    private readonly aliases: KeyAliases,
    private readonly hsm: Hsm | undefined,
    private readonly maxPayloadBytes: number,
    private readonly subjects: SubjectKeys,
  ) {}

  async encrypt(caller: Caller, command: EncryptCommand): Promise<CiphertextResult> {
    const method = resolveMethod(command.method);
    const plaintext = this.#checkedSize(decodePayload(command.payload, command.encoding));
    const selectors = (['sessionId', 'keyAlias', 'subject'] as const).filter((s) => command[s] !== undefined);
    if (selectors.length > 1) throw invalid(`dispatch.${selectors[1]}`, 'exclusive', `${selectors.join(' and ')} cannot be used together`);
    if (command.subject !== undefined) return this.#encryptForSubject(caller, method, command.subject, plaintext);
    if (command.sessionId !== undefined) return this.#encryptInSession(caller, method, command.sessionId, plaintext);
    if (command.keyAlias !== undefined) return this.#encryptWithAlias(caller, method, command.keyAlias, plaintext);
    this.#requireHsmFor(method);
    const key = this.keyring.cachedEncryptionKey(caller.tenant, method.family) ?? (await this.keyring.encryptionKey(caller.tenant, method.family));
    return this.#seal(caller, method, DEFAULT_KEY, key.version, key, plaintext);
  }

  async decrypt(caller: Caller, ciphertextText: string, encoding: PayloadEncoding, methodHint?: string): Promise<DecryptResult> {
    const { plaintext, method, version } = await this.#open(caller, ciphertextText, methodHint);
    return { payload: encodePayload(plaintext, encoding), encoding, method, keyVersion: version };
  }

  /** Re-encrypts under the newest version (and newest method) of the same key; the plaintext never leaves. */
  async rewrap(caller: Caller, ciphertextText: string, methodHint?: string): Promise<CiphertextResult> {
    const parsed = parseCiphertext(ciphertextText);
    if (parsed.keyRef.kind === 'session') {
      throw invalid('payload', 'not-rewrappable', 'session ciphertexts are bound to their session key and cannot be rewrapped');
    }
    const { plaintext } = await this.#open(caller, ciphertextText, methodHint);
    const method = newestMethod(resolveMethod(parsed.method).family);
    if (parsed.keyRef.kind === 'alias') return this.#encryptWithAlias(caller, method, parsed.keyRef.alias, plaintext);
    if (parsed.keyRef.kind === 'subject') return this.#encryptForSubject(caller, method, parsed.keyRef.subject, plaintext);
    const key = await this.keyring.encryptionKey(caller.tenant, method.family);
    return this.#seal(caller, method, DEFAULT_KEY, key.version, key, plaintext);
  }

  async createSession(caller: Caller, methodName: string): Promise<SessionInfo> {
    const method = resolveMethod(methodName);
    if (method.family !== 'aes') throw invalid('dispatch.method', 'aes-only', 'sessions are AES data keys; use method aes');
    return this.sessions.create(caller.tenant, caller.user, method.name);
  }

  async #encryptInSession(caller: Caller, method: MethodSpec, sessionId: string, plaintext: Buffer): Promise<CiphertextResult> {
    if (method.family !== 'aes') throw invalid('dispatch.sessionId', 'aes-only', 'sessionId is used with method aes');
    const session = await this.sessions.keyForEncryption(caller.tenant, sessionId);
    if (session.method !== method.name) {
      throw invalid('dispatch.method', 'session-method', `the session was created for ${session.method}`);
    }
    return this.#seal(caller, method, { kind: 'session', sessionId }, 1, { family: 'aes', material: session.key }, plaintext);
  }

  async #encryptForSubject(caller: Caller, method: MethodSpec, subject: string, plaintext: Buffer): Promise<CiphertextResult> {
    if (method.family !== 'aes') throw invalid('dispatch.subject', 'aes-only', 'subject keys are AES keyring keys; use method aes');
    checkSubjectId(subject, 'dispatch.subject', 'dispatch');
    const key = await this.subjects.encryptionKey(caller.tenant, subject);
    return this.#seal(caller, method, { kind: 'subject', subject }, key.version, key, plaintext);
  }

  async #encryptWithAlias(caller: Caller, method: MethodSpec, alias: string, plaintext: Buffer): Promise<CiphertextResult> {
    if (method.family !== 'hsm') throw invalid('dispatch.keyAlias', 'hsm-only', 'keyAlias is used with method hsm');
    this.#requireHsmFor(method);
    const resolved = await this.aliases.resolve(caller.tenant, alias, method.family);
    return this.#seal(caller, method, { kind: 'alias', alias }, 1, { family: 'hsm', hsmLabel: resolved.keyLabel }, plaintext);
  }

  /** Software keys seal synchronously (no promise per encryption); only the HSM answers later. */
  #seal(caller: Caller, method: MethodSpec, keyRef: KeyRef, version: number, key: SealingKey, plaintext: Buffer): CiphertextResult | Promise<CiphertextResult> {
    const aad = additionalData(method.name, keyRef, version, caller.tenant);
    if (key.family === 'aes') return this.#result(method, keyRef, version, sealAesGcm(key.material, plaintext, aad));
    return this.#hsmSeal(key.hsmLabel, plaintext, aad).then((sealed) => this.#result(method, keyRef, version, sealed));
  }

  #result(method: MethodSpec, keyRef: KeyRef, version: number, sealed: Buffer): CiphertextResult {
    return {
      ciphertext: formatCiphertext({ method: method.name, keyRef, version, sealed }),
      method: method.name,
      keyRef: keyRefToString(keyRef),
      keyVersion: version,
    };
  }

  async #open(caller: Caller, text: string, methodHint?: string): Promise<{ plaintext: Buffer; method: string; version: number }> {
    const parsed = parseCiphertext(text);
    const method = resolveMethod(parsed.method, 'payload');
    if (methodHint !== undefined && resolveMethod(methodHint).family !== method.family) {
      throw invalid('dispatch.method', 'method-mismatch', `the ciphertext was made with ${method.name}`);
    }
    this.#requireHsmFor(method);
    const key = await this.#decryptionKey(caller, method, parsed.keyRef, parsed.version);
    const aad = additionalData(parsed.method, parsed.keyRef, parsed.version, caller.tenant);
    const plaintext =
      key.family === 'aes'
        ? openAesGcm(key.material, parsed.sealed, aad)
        : await (this.hsm as Hsm).decrypt(key.hsmLabel, { iv: parsed.sealed.subarray(0, 12), ciphertext: parsed.sealed.subarray(12) }, aad);
    return { plaintext, method: parsed.method, version: parsed.version };
  }

  async #decryptionKey(caller: Caller, method: MethodSpec, ref: KeyRef, version: number): Promise<SealingKey> {
    switch (ref.kind) {
      case 'session':
        return { family: 'aes', material: await this.sessions.keyForDecryption(caller.tenant, ref.sessionId) };
      case 'alias':
        return { family: 'hsm', hsmLabel: (await this.aliases.resolve(caller.tenant, ref.alias, method.family, 'payload')).keyLabel };
      case 'default':
        return sealingKey(await this.keyring.decryptionKey(caller.tenant, method.family, 'default', version));
      case 'subject':
        return sealingKey(await this.subjects.decryptionKey(caller.tenant, ref.subject, version));
    }
  }

  async #hsmSeal(label: string, plaintext: Buffer, aad: Buffer): Promise<Buffer> {
    const sealed = await (this.hsm as Hsm).encrypt(label, plaintext, aad);
    return Buffer.concat([sealed.iv, sealed.ciphertext]);
  }

  #requireHsmFor(method: MethodSpec): void {
    if (method.family === 'hsm' && !this.hsm) {
      throw new DeltabrokerError('DB_HSM_UNAVAILABLE', 'no HSM is configured on this instance (install softhsm2 or set DELTABROKER_HSM_MODULE)', {
        field: 'dispatch.method',
        stage: 'dispatch',
      });
    }
  }

  #checkedSize(bytes: Buffer): Buffer {
    if (bytes.length > this.maxPayloadBytes) {
      throw new DeltabrokerError('DB_PAYLOAD_TOO_LARGE', `payload is ${bytes.length} bytes; the limit is ${this.maxPayloadBytes}`, {
        field: 'payload',
        rule: 'max-bytes',
        stage: 'dispatch',
        limit: this.maxPayloadBytes,
      });
    }
    return bytes;
  }
}

const DEFAULT_KEY: KeyRef = { kind: 'default' };

const sealingKey = (key: KeyVersion): SealingKey =>
  key.family === 'aes' ? { family: 'aes', material: key.material } : { family: 'hsm', hsmLabel: key.hsmLabel };

const invalid = (field: string, rule: string, message: string): DeltabrokerError =>
  new DeltabrokerError('DB_VALIDATION', message, { field, rule, stage: 'dispatch' });
