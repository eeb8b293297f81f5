import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DeltabrokerError } from '../errors';

/** AES-256-GCM with a random 96-bit nonce and a 128-bit tag. Sealed layout: nonce ‖ ciphertext ‖ tag. */
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** Nonces per CSPRNG call: one call per 341 nonces instead of one per nonce, which was most of an encryption's CPU. */
const NONCES_PER_DRAW = 341;
let noncePool = Buffer.alloc(0);
let nonceAt = 0;

/**
 * A fresh random 96-bit nonce. The bytes come from the CSPRNG in blocks; each block is a new buffer and each
 * nonce's bytes are handed out once, so nonces are exactly as random and as unique as one call per nonce.
 */
function nextNonce(): Buffer {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    noncePool = randomBytes(NONCE_BYTES * NONCES_PER_DRAW);
    nonceAt = 0;
  }
  const nonce = noncePool.subarray(nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return nonce;
}

export function sealAesGcm(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const nonce = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const body = cipher.update(plaintext);
  const last = cipher.final();
  return Buffer.concat([nonce, body, last, cipher.getAuthTag()]);
}

export function openAesGcm(key: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) {
    throw new DeltabrokerError('DB_DECRYPT_FAILED', 'ciphertext is too short', { field: 'payload', rule: 'format' });
  }
  const nonce = sealed.subarray(0, NONCE_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const body = sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    throw new DeltabrokerError('DB_DECRYPT_FAILED', 'ciphertext failed authentication', { field: 'payload', rule: 'integrity' });
  }
}

export const randomKey = (): Buffer => randomBytes(KEY_BYTES);
