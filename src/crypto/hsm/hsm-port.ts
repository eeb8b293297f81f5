/**
 * The HSM port: what the crypto core asks of a hardware security module. Engine-free on purpose; the only
 * adapter today is PKCS#11 (pkcs11-hsm.ts), and test/support/hsm-contract.ts is the suite every adapter
 * must pass.
 *
 * Keys are named by label and never leave the module: the port has no call that returns key material.
 */

/** AES-256-GCM output of the HSM. `ciphertext` ends with the 16-byte GCM tag. */
export interface HsmCiphertext {
  /** The 96-bit nonce. */
  iv: Buffer;
  /** Ciphertext followed by the 128-bit tag. */
  ciphertext: Buffer;
}

/** What the HSM says about a key's protection, for operators and the contract suite. Never the value. */
export interface HsmKeyInfo {
  label: string;
  /** Key length in bits, when the module reports it. */
  bits: number | undefined;
  /** CKA_SENSITIVE: the value can never be read in clear. */
  sensitive: boolean;
  /** CKA_EXTRACTABLE: the value may be wrapped out of the module. */
  extractable: boolean;
  /** CKA_ALWAYS_SENSITIVE, when reported. */
  alwaysSensitive: boolean | undefined;
  /** CKA_NEVER_EXTRACTABLE, when reported. */
  neverExtractable: boolean | undefined;
}

export interface Hsm {
  /** Creates a non-extractable, sensitive AES-256 secret key with this label if none exists. */
  ensureKey(label: string): Promise<void>;
  hasKey(label: string): Promise<boolean>;
  /** Unknown label → DeltabrokerError('DB_UNKNOWN_KEY'). */
  encrypt(label: string, plaintext: Buffer, aad: Buffer): Promise<HsmCiphertext>;
  /**
   * Wrong key, AAD or tag, or a malformed `sealed` → DeltabrokerError('DB_DECRYPT_FAILED');
   * unknown label → DeltabrokerError('DB_UNKNOWN_KEY'); module trouble → 'DB_HSM_UNAVAILABLE'.
   */
  decrypt(label: string, sealed: HsmCiphertext, aad: Buffer): Promise<Buffer>;
  /** Protection attributes of a key (never its value); null when no key has this label. */
  describeKey(label: string): Promise<HsmKeyInfo | null>;
  /** Cheap liveness check: a session is open, logged in, and the token is present. Throws DB_HSM_UNAVAILABLE. */
  ping(): Promise<void>;
  /** Waits for calls in flight, closes sessions, releases the module. Later calls → DB_HSM_UNAVAILABLE. */
  close(): Promise<void>;
}
