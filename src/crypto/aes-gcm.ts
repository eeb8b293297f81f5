import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DeltabrokerError } from '../errors';

/** AES-256-GCM with a random 96-bit nonce and a 128-bit tag. Sealed layout: nonce ‖ ciphertext ‖ tag. */
export const NONCE_BYTES = 12;
export const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export function sealAesGcm(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
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
