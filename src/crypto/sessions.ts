import { randomBytes } from 'node:crypto';
import { DeltabrokerError } from '../errors';
import type { SqlClient } from '../store/sql-client';
import { openAesGcm, randomKey, sealAesGcm } from './aes-gcm';
import { isValidKeyName } from './ciphertext';
import type { Keyring } from './keyring';

export interface SessionInfo {
  sessionId: string;
  method: string;
  expiresAt: string;
  maxUses: number;
}

export interface SessionOptions {
  ttlSeconds: number;
  maxUses: number;
}

/**
 * Sessions are data keys (like KMS GenerateDataKeyWithoutPlaintext): a fresh AES-256 key per session, stored only
 * wrapped under the tenant's newest default AES keyring version. A session encrypts until it expires or reaches
 * its use cap; what it encrypted stays decryptable afterwards.
 */
export class SessionStore {
  readonly #keys = new Map<string, Buffer>();

  constructor(
    private readonly sql: SqlClient,
    private readonly keyring: Keyring,
    private readonly options: SessionOptions,
  ) {}

  async create(tenant: string, user: string, method: string): Promise<SessionInfo> {
    const wrapping = await this.keyring.encryptionKey(tenant, 'aes');
    if (wrapping.family !== 'aes') throw new Error('session wrapping key must be a software key');
    const sessionId = randomBytes(18).toString('base64url');
    const wrapped = sealAesGcm(wrapping.material, randomKey(), sessionContext(tenant, sessionId));
    const expiresAt = new Date(Date.now() + this.options.ttlSeconds * 1000);
    await this.sql.query(
      `insert into crypto_sessions (id, tenant, method, wrapped_key, wrapping_version, expires_at, max_uses, created_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [sessionId, tenant, method, wrapped, wrapping.version, expiresAt.toISOString(), this.options.maxUses, user],
    );
    return { sessionId, method, expiresAt: expiresAt.toISOString(), maxUses: this.options.maxUses };
  }

  /** The session key for one more encryption: counts the use, refuses expired or exhausted sessions. */
  async keyForEncryption(tenant: string, sessionId: string): Promise<{ method: string; key: Buffer }> {
    // A caller's id that no session can have (ids are key names, as in a ciphertext's `session.<id>`) is unknown
    // without asking the database, which refuses some of them (U+0000) with an error instead of no row.
    const result = isValidKeyName(sessionId)
      ? await this.sql.query<SessionRow>(
          `update crypto_sessions set uses = uses + 1
        where id = $1 and tenant = $2 and expires_at > now() and uses < max_uses
        returning method, wrapped_key, wrapping_version`,
          [sessionId, tenant],
        )
      : undefined;
    const row = result?.rows[0];
    if (!row) {
      throw new DeltabrokerError('DB_SESSION_INVALID', 'the session is unknown, expired or used up; create a new one', {
        field: 'dispatch.sessionId',
        rule: 'active-session',
        stage: 'dispatch',
      });
    }
    return { method: row.method, key: await this.#unwrap(tenant, sessionId, row) };
  }

  /** The session key for decryption: allowed after expiry, since the data it protects outlives the session. */
  async keyForDecryption(tenant: string, sessionId: string): Promise<Buffer> {
    const cached = this.#keys.get(`${tenant}/${sessionId}`);
    if (cached) return cached;
    const result = await this.sql.query<SessionRow>('select method, wrapped_key, wrapping_version from crypto_sessions where id = $1 and tenant = $2', [
      sessionId,
      tenant,
    ]);
    const row = result.rows[0];
    if (!row) throw new DeltabrokerError('DB_UNKNOWN_KEY', 'the ciphertext names an unknown session', { field: 'payload', rule: 'session' });
    return this.#unwrap(tenant, sessionId, row);
  }

  async #unwrap(tenant: string, sessionId: string, row: SessionRow): Promise<Buffer> {
    const id = `${tenant}/${sessionId}`;
    const cached = this.#keys.get(id);
    if (cached) return cached;
    const wrapping = await this.keyring.decryptionKey(tenant, 'aes', 'default', Number(row.wrapping_version));
    if (wrapping.family !== 'aes') throw new Error('session wrapping key must be a software key');
    const key = openAesGcm(wrapping.material, Buffer.from(row.wrapped_key), sessionContext(tenant, sessionId));
    this.#keys.set(id, key);
    return key;
  }
}

interface SessionRow {
  method: string;
  wrapped_key: Uint8Array;
  wrapping_version: number;
}

const sessionContext = (tenant: string, sessionId: string): Buffer => Buffer.from(`deltabroker-session|${tenant}|${sessionId}`);
