import { DeltabrokerError } from '../errors';
import type { Logger } from '../logger';
import type { SqlClient, SqlExecutor } from '../store/sql-client';
import { randomKey } from './aes-gcm';
import type { Hsm } from './hsm/hsm-port';
import type { MasterKey } from './master-key';
import type { MethodFamily } from './methods';

/** One usable key version: software material (unwrapped, in memory only) or the label of a key inside the HSM. */
export type KeyVersion = { version: number; family: 'aes'; material: Buffer } | { version: number; family: 'hsm'; hsmLabel: string };

export interface KeyInfo {
  tenant: string;
  name: string;
  family: MethodFamily;
  latestVersion: number;
  minDecryptionVersion: number;
  versions: { version: number; encryptions: number; createdAt: string }[];
}

interface KeyState {
  latest: number;
  minDecryption: number;
  loadedAt: number;
  versions: Map<number, KeyVersion>;
}

export interface KeyringOptions {
  rotateAfterEncryptions: number;
  logger: Logger;
  /** How long key metadata (latest version) is trusted before it is re-read: other instances may rotate. */
  metadataTtlMs?: number;
}

/**
 * Named, versioned keys per tenant, like Vault Transit: every version is one row, software material is stored
 * wrapped by the master key, HSM keys are referenced by label. Encryptions are counted per version and a key is
 * rotated automatically before the AES-GCM random-nonce limit.
 */
export class Keyring {
  readonly #states = new Map<string, KeyState>();
  readonly #pendingCounts = new Map<string, { tenant: string; name: string; family: MethodFamily; version: number; n: number }>();
  readonly #flushTimer: NodeJS.Timeout;
  readonly #ttl: number;

  constructor(
    private readonly sql: SqlClient,
    private readonly master: MasterKey,
    private readonly hsm: Hsm | undefined,
    private readonly options: KeyringOptions,
  ) {
    this.#ttl = options.metadataTtlMs ?? 10_000;
    this.#flushTimer = setInterval(() => void this.flush().catch((e: unknown) => options.logger.warn({ err: e }, 'key usage flush failed')), 1000);
    this.#flushTimer.unref();
  }

  /**
   * The newest version of a key when this instance holds it and its metadata is fresh, else undefined (then
   * `encryptionKey` loads it). Synchronous, so an encryption under a cached key waits on nothing.
   */
  cachedEncryptionKey(tenant: string, family: MethodFamily, name = 'default'): KeyVersion | undefined {
    const id = stateKey(tenant, family, name);
    const state = this.#states.get(id);
    if (!state || Date.now() - state.loadedAt >= this.#ttl) return undefined;
    const key = state.versions.get(state.latest);
    if (key) this.#count(tenant, family, name, key.version);
    return key;
  }

  /** The newest version of a key, creating the key (version 1) on first use. */
  async encryptionKey(tenant: string, family: MethodFamily, name = 'default'): Promise<KeyVersion> {
    const cached = this.cachedEncryptionKey(tenant, family, name);
    if (cached) return cached;
    let state = await this.#state(tenant, family, name);
    if (state.latest === 0) {
      await this.rotate(tenant, family, name);
      state = await this.#state(tenant, family, name, true);
    }
    const key = await this.#version(tenant, family, name, state, state.latest);
    this.#count(tenant, family, name, key.version);
    return key;
  }

  async decryptionKey(tenant: string, family: MethodFamily, name: string, version: number): Promise<KeyVersion> {
    let state = await this.#state(tenant, family, name);
    if (version > state.latest) state = await this.#state(tenant, family, name, true);
    if (version > state.latest || state.latest === 0) {
      throw new DeltabrokerError('DB_UNKNOWN_KEY', `key version v${version} does not exist`, { field: 'payload', rule: 'key-version' });
    }
    if (version < state.minDecryption) {
      throw new DeltabrokerError('DB_KEY_VERSION_DISABLED', `key version v${version} is below the minimum decryption version v${state.minDecryption}`, {
        field: 'payload',
        rule: 'min-decryption-version',
      });
    }
    return this.#version(tenant, family, name, state, version);
  }

  /** Adds a new version and makes it the one new encryptions use. Returns the new version number. */
  async rotate(tenant: string, family: MethodFamily, name = 'default'): Promise<number> {
    if (family === 'hsm' && !this.hsm) {
      throw new DeltabrokerError('DB_HSM_UNAVAILABLE', 'no HSM is configured', { stage: 'keyring' });
    }
    const version = await this.sql.transaction(async (tx) => {
      await tx.query('insert into crypto_keys (tenant, name, kind) values ($1, $2, $3) on conflict do nothing', [tenant, name, family]);
      const updated = await tx.query<{ latest_version: number }>(
        'update crypto_keys set latest_version = latest_version + 1 where tenant = $1 and name = $2 and kind = $3 returning latest_version',
        [tenant, name, family],
      );
      const next = Number(updated.rows[0]?.latest_version);
      await this.#insertVersion(tx, tenant, family, name, next);
      return next;
    });
    this.#states.delete(stateKey(tenant, family, name));
    this.options.logger.info({ tenant, key: name, family, version }, 'key rotated');
    return version;
  }

  async setMinDecryptionVersion(tenant: string, family: MethodFamily, name: string, version: number): Promise<void> {
    const result = await this.sql.query(
      'update crypto_keys set min_decryption_version = $4 where tenant = $1 and name = $2 and kind = $3 and $4 between 1 and latest_version',
      [tenant, name, family, version],
    );
    if (result.rowCount === 0) {
      throw new DeltabrokerError('DB_VALIDATION', `no key ${tenant}/${name} (${family}) with a version v${version}`, { field: 'version', rule: 'exists' });
    }
    this.#states.delete(stateKey(tenant, family, name));
  }

  async list(tenant?: string): Promise<KeyInfo[]> {
    await this.flush();
    const keys = await this.sql.query<{ tenant: string; name: string; kind: MethodFamily; latest_version: number; min_decryption_version: number }>(
      'select tenant, name, kind, latest_version, min_decryption_version from crypto_keys where $1::text is null or tenant = $1 order by tenant, name, kind',
      [tenant ?? null],
    );
    const versions = await this.sql.query<{
      tenant: string;
      name: string;
      kind: string;
      version: number;
      encryptions: string | number;
      created_at: Date | string;
    }>('select tenant, name, kind, version, encryptions, created_at from crypto_key_versions where $1::text is null or tenant = $1 order by version', [
      tenant ?? null,
    ]);
    return keys.rows.map((k) => ({
      tenant: k.tenant,
      name: k.name,
      family: k.kind,
      latestVersion: Number(k.latest_version),
      minDecryptionVersion: Number(k.min_decryption_version),
      versions: versions.rows
        .filter((v) => v.tenant === k.tenant && v.name === k.name && v.kind === k.kind)
        .map((v) => ({ version: Number(v.version), encryptions: Number(v.encryptions), createdAt: new Date(v.created_at).toISOString() })),
    }));
  }

  /** Writes the pending encryption counts and rotates any version that reached the limit. */
  async flush(): Promise<void> {
    const pending = [...this.#pendingCounts.values()];
    this.#pendingCounts.clear();
    for (const p of pending) {
      const result = await this.sql.query<{ encryptions: string | number; latest_version: number }>(
        `update crypto_key_versions v set encryptions = encryptions + $5
           from crypto_keys k
          where v.tenant = $1 and v.name = $2 and v.kind = $3 and v.version = $4
            and k.tenant = v.tenant and k.name = v.name and k.kind = v.kind
          returning v.encryptions, k.latest_version`,
        [p.tenant, p.name, p.family, p.version, p.n],
      );
      const row = result.rows[0];
      if (row && Number(row.encryptions) >= this.options.rotateAfterEncryptions && Number(row.latest_version) === p.version) {
        await this.rotate(p.tenant, p.family, p.name);
      }
    }
  }

  /**
   * Deletes every version of a key and the key itself inside `tx` (crypto-shredding: no row is left for a
   * backup taken afterwards to restore). Call `forget` once `tx` has committed. Answers the versions deleted.
   */
  async destroy(tx: SqlExecutor, tenant: string, family: MethodFamily, name: string): Promise<number> {
    const versions = await tx.query('delete from crypto_key_versions where tenant = $1 and name = $2 and kind = $3', [tenant, name, family]);
    await tx.query('delete from crypto_keys where tenant = $1 and name = $2 and kind = $3', [tenant, name, family]);
    for (const id of this.#pendingCounts.keys()) if (id.startsWith(`${stateKey(tenant, family, name)}/`)) this.#pendingCounts.delete(id);
    return versions.rowCount;
  }

  /** Drops a key from this instance's cache, overwriting its unwrapped material. */
  forget(tenant: string, family: MethodFamily, name: string): void {
    const id = stateKey(tenant, family, name);
    for (const key of this.#states.get(id)?.versions.values() ?? []) if (key.family === 'aes') key.material.fill(0);
    this.#states.delete(id);
  }

  async close(): Promise<void> {
    clearInterval(this.#flushTimer);
    await this.flush();
    this.#states.clear();
  }

  async #insertVersion(tx: SqlExecutor, tenant: string, family: MethodFamily, name: string, version: number): Promise<void> {
    if (family === 'hsm') {
      const label = hsmLabel(tenant, name, version);
      await (this.hsm as Hsm).ensureKey(label);
      await tx.query('insert into crypto_key_versions (tenant, name, kind, version, hsm_label) values ($1, $2, $3, $4, $5)', [
        tenant,
        name,
        family,
        version,
        label,
      ]);
      return;
    }
    const wrapped = this.master.wrap(randomKey(), wrapContext(tenant, name, family, version));
    await tx.query('insert into crypto_key_versions (tenant, name, kind, version, wrapped_material) values ($1, $2, $3, $4, $5)', [
      tenant,
      name,
      family,
      version,
      wrapped,
    ]);
  }

  async #state(tenant: string, family: MethodFamily, name: string, fresh = false): Promise<KeyState> {
    const id = stateKey(tenant, family, name);
    const cached = this.#states.get(id);
    if (cached && !fresh && Date.now() - cached.loadedAt < this.#ttl) return cached;
    const result = await this.sql.query<{ latest_version: number; min_decryption_version: number }>(
      'select latest_version, min_decryption_version from crypto_keys where tenant = $1 and name = $2 and kind = $3',
      [tenant, name, family],
    );
    const row = result.rows[0];
    const state: KeyState = {
      latest: Number(row?.latest_version ?? 0),
      minDecryption: Number(row?.min_decryption_version ?? 1),
      loadedAt: Date.now(),
      versions: cached?.versions ?? new Map(),
    };
    this.#states.set(id, state);
    return state;
  }

  async #version(tenant: string, family: MethodFamily, name: string, state: KeyState, version: number): Promise<KeyVersion> {
    const cached = state.versions.get(version);
    if (cached) return cached;
    const result = await this.sql.query<{ wrapped_material: Uint8Array | null; hsm_label: string | null }>(
      'select wrapped_material, hsm_label from crypto_key_versions where tenant = $1 and name = $2 and kind = $3 and version = $4',
      [tenant, name, family, version],
    );
    const row = result.rows[0];
    if (!row) throw new DeltabrokerError('DB_UNKNOWN_KEY', `key version v${version} does not exist`, { field: 'payload', rule: 'key-version' });
    const key: KeyVersion = row.hsm_label
      ? { version, family: 'hsm', hsmLabel: row.hsm_label }
      : { version, family: 'aes', material: this.master.unwrap(Buffer.from(row.wrapped_material as Uint8Array), wrapContext(tenant, name, family, version)) };
    state.versions.set(version, key);
    return key;
  }

  #count(tenant: string, family: MethodFamily, name: string, version: number): void {
    const id = `${stateKey(tenant, family, name)}/${version}`;
    const pending = this.#pendingCounts.get(id);
    if (pending) pending.n += 1;
    else this.#pendingCounts.set(id, { tenant, name, family, version, n: 1 });
  }
}

const stateKey = (tenant: string, family: MethodFamily, name: string): string => `${tenant}/${name}/${family}`;
const wrapContext = (tenant: string, name: string, family: MethodFamily, version: number): string => `deltabroker-key|${tenant}|${name}|${family}|v${version}`;
export const hsmLabel = (tenant: string, name: string, version: number): string => `deltabroker.${tenant}.${name}.v${version}`;
