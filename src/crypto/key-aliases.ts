import { DeltabrokerError } from '../errors';
import type { SqlClient } from '../store/sql-client';
import type { Hsm } from './hsm/hsm-port';
import { isValidKeyName } from './ciphertext';
import type { MethodFamily } from './methods';

export interface KeyAlias {
  tenant: string;
  alias: string;
  family: MethodFamily;
  keyLabel: string;
  enabled: boolean;
}

/**
 * The seed's CRYPTO_CONFIG table: custom HSM keys a tenant may name with `keyAlias`. An alias is usable only when
 * it is configured, enabled, of the requested method's family, and its key is present in the HSM.
 */
export class KeyAliases {
  constructor(
    private readonly sql: SqlClient,
    private readonly hsm: Hsm | undefined,
  ) {}

  async resolve(tenant: string, alias: string, family: MethodFamily, field = 'dispatch.keyAlias'): Promise<KeyAlias> {
    const refuse = (why: string): never => {
      throw new DeltabrokerError('DB_UNKNOWN_KEY', `key alias '${alias.slice(0, 64)}' ${why}`, { field, rule: 'crypto-config', stage: 'dispatch' });
    };
    if (!isValidKeyName(alias)) refuse('is not a valid alias name');
    const result = await this.sql.query<{ method: string; key_label: string; enabled: boolean }>(
      'select method, key_label, enabled from crypto_config where tenant = $1 and alias = $2',
      [tenant, alias],
    );
    const row = result.rows[0] ?? refuse('is not configured in CRYPTO_CONFIG');
    if (!row.enabled) refuse('is disabled');
    if (row.method !== family) refuse(`is configured for method ${row.method}`);
    if (!this.hsm || !(await this.hsm.hasKey(row.key_label))) refuse('is not recognised by the HSM');
    return { tenant, alias, family, keyLabel: row.key_label, enabled: row.enabled };
  }

  /** Records an alias; with `createKey`, also creates its key in the HSM when missing. */
  async configure(alias: KeyAlias, createKey = false): Promise<void> {
    if (!isValidKeyName(alias.alias)) {
      throw new DeltabrokerError('DB_VALIDATION', 'alias names are 1-64 letters, digits, _ or -', { field: 'alias', rule: 'pattern' });
    }
    if (createKey) {
      if (!this.hsm) throw new DeltabrokerError('DB_HSM_UNAVAILABLE', 'no HSM is configured', { stage: 'keyring' });
      await this.hsm.ensureKey(alias.keyLabel);
    }
    await this.sql.query(
      `insert into crypto_config (tenant, alias, method, key_label, enabled) values ($1, $2, $3, $4, $5)
       on conflict (tenant, alias) do update set method = excluded.method, key_label = excluded.key_label, enabled = excluded.enabled`,
      [alias.tenant, alias.alias, alias.family, alias.keyLabel, alias.enabled],
    );
  }

  async list(tenant?: string): Promise<KeyAlias[]> {
    const result = await this.sql.query<{ tenant: string; alias: string; method: MethodFamily; key_label: string; enabled: boolean }>(
      'select tenant, alias, method, key_label, enabled from crypto_config where $1::text is null or tenant = $1 order by tenant, alias',
      [tenant ?? null],
    );
    return result.rows.map((r) => ({ tenant: r.tenant, alias: r.alias, family: r.method, keyLabel: r.key_label, enabled: r.enabled }));
  }
}
