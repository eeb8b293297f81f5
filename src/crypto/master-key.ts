import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hkdfSync } from 'node:crypto';
import path from 'node:path';
import { DeltabrokerError } from '../errors';
import { KEY_BYTES, openAesGcm, randomKey, sealAesGcm } from './aes-gcm';

/**
 * The master key wraps every keyring key version. It comes from configuration, or (development only) from a
 * file generated in the data directory with mode 0600. It is never logged or returned.
 */
export class MasterKey {
  readonly #key: Buffer;

  private constructor(key: Buffer) {
    this.#key = key;
  }

  static fromBase64(text: string): MasterKey {
    const key = Buffer.from(text, 'base64');
    if (key.length !== KEY_BYTES) {
      throw new DeltabrokerError('DB_VALIDATION', 'the master key must be 32 bytes in base64', {
        field: 'crypto.masterKey',
        rule: 'length',
        stage: 'config',
      });
    }
    return new MasterKey(key);
  }

  static loadOrCreate(dataDir: string): MasterKey {
    const file = path.join(dataDir, 'master.key');
    if (!existsSync(file)) {
      mkdirSync(dataDir, { recursive: true });
      writeFileSync(file, randomKey().toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    return MasterKey.fromBase64(readFileSync(file, 'utf8').trim());
  }

  wrap(material: Buffer, context: string): Buffer {
    return sealAesGcm(this.#key, material, Buffer.from(context, 'utf8'));
  }

  unwrap(wrapped: Buffer, context: string): Buffer {
    return openAesGcm(this.#key, wrapped, Buffer.from(context, 'utf8'));
  }

  /** A key for another purpose (HKDF-SHA-256 with `purpose` as info): instances sharing the master key share it. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), Buffer.from(purpose, 'utf8'), KEY_BYTES));
  }

  /** Keeps the key out of logs and JSON even if someone logs the object. */
  toJSON(): string {
    return '[master key]';
  }
}
