/**
 * Name claims on a real PostgreSQL: one owner per topic (as Kafka compares names), table and index, agreed by
 * every instance; a configuration mapping onto another's name is refused where configurations are looked up.
 */
import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import { ClaimingEntityConfigSource, InMemoryEntityConfigSource } from '../../../src/tenant';
import { minimalInput } from '../../unit/tenant/fixtures';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';

const config = (tenant: string, entity: string, extra: Record<string, unknown> = {}) => ({ ...minimalInput(), tenant, entity, ...extra });

describe('ClaimingEntityConfigSource', () => {
  let store: ScratchSql;

  beforeEach(async () => {
    store = await scratchPostgres('claims');
    await migrate(store.sql, silentLogger());
  });
  afterEach(() => store.close());

  const claiming = (configs: unknown[], datacenter = 'dc1') =>
    new ClaimingEntityConfigSource(new InMemoryEntityConfigSource(configs), { sql: store.sql, datacenter });

  test("the issue's pair: the first tenant keeps its topic, the other is refused without being told whose it is", async () => {
    const source = claiming([
      config('acme', 'merchant_account', { notifications: ['global', 'local'] }),
      config('acme_merchant', 'account', { notifications: ['global', 'local'] }),
    ]);
    const listing = await source.list();
    expect(listing.configs.map((c) => `${c.tenant}/${c.entity}`)).toEqual(['acme/merchant_account']);
    expect(listing.refused).toEqual([
      {
        tenant: 'acme_merchant',
        entity: 'account',
        source: 'physical_name_claims',
        code: 'DB_CONFLICT',
        field: 'persistence.topic',
        rule: 'name-taken',
        message: expect.stringMatching(/belongs to another tenant/),
      },
    ]);
    await expect(source.get('acme', 'merchant_account')).resolves.toMatchObject({ tenant: 'acme' });
    const refusal = await source.get('acme_merchant', 'account').catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'DB_CONFLICT', details: { field: 'persistence.topic', rule: 'name-taken', stage: 'entity-config' } });
    expect((refusal as Error).message).toMatch(/belongs to another tenant \(Kafka takes "\." and "_" in topic names for the same character\)/);
    expect((refusal as Error).message).not.toMatch(/\bacme\//);
    const owners = await store.sql.query<{ kind: string; name: string; owner: string }>(
      'select kind, name, owner from physical_name_claims order by kind, name',
    );
    expect(owners.rows).toEqual([
      { kind: 'index', name: 'acme__merchant_account', owner: 'acme/merchant_account' },
      { kind: 'table', name: 'tenant_acme.merchant_account', owner: 'acme/merchant_account' },
      { kind: 'topic', name: 'acme_merchant_account_actions_dc1', owner: 'acme' },
      { kind: 'topic', name: 'acme_merchant_account_actions_global', owner: 'acme' },
      { kind: 'topic', name: 'acme_merchant_account_events', owner: 'acme' },
    ]);
  });

  test('a second instance (its own source, same database) agrees on the owner, whichever asks first', async () => {
    const first = claiming([config('acme_merchant', 'account')]);
    const second = claiming([config('acme', 'merchant_account')], 'dc2');
    await expect(first.get('acme_merchant', 'account')).resolves.toBeDefined();
    await expect(second.get('acme', 'merchant_account')).rejects.toMatchObject({ code: 'DB_CONFLICT', details: { field: 'persistence.topic' } });
    await expect(Promise.all([first.get('acme_merchant', 'account'), first.list()])).resolves.toHaveLength(2);
  });

  test('entities of one tenant may share a topic, but not a table or an index', async () => {
    const source = claiming([
      config('t1', 'a', { persistence: { topic: 't1.shared', table: 'rows' } }),
      config('t1', 'b', { persistence: { topic: 't1.shared', table: 'rows' } }),
      config('t1', 'c', { persistence: { topic: 't1.shared', index: 'a' } }),
      config('t1', 'd', { persistence: { topic: 't1.shared' } }),
    ]);
    const listing = await source.list();
    expect(listing.configs.map((c) => c.entity)).toEqual(['a', 'd']);
    expect(listing.refused.map((r) => [r.entity, r.field])).toEqual([
      ['b', 'persistence.table'],
      ['c', 'persistence.index'],
    ]);
    await expect(source.get('t1', 'b')).rejects.toMatchObject({
      details: { field: 'persistence.table', rule: 'name-taken' },
      message: expect.stringMatching(/belongs to entity a of the same tenant/),
    });
    await expect(source.get('t1', 'c')).rejects.toMatchObject({ details: { field: 'persistence.index', rule: 'name-taken' } });
  });

  test('another tenant naming the same local table or index gets its own objects: no conflict', async () => {
    const source = claiming([
      config('acme', 'merchant_account'),
      config('evil', 'account', { persistence: { table: 'merchant_account', index: 'merchant_account' } }),
    ]);
    expect((await source.list()).configs.map((c) => c.tenant)).toEqual(['acme', 'evil']);
  });

  test('an unknown entity is undefined and claims nothing', async () => {
    const source = claiming([config('acme', 'merchant_account')]);
    await expect(source.get('acme', 'nothing')).resolves.toBeUndefined();
    expect((await store.sql.query('select 1 from physical_name_claims')).rowCount).toBe(0);
  });
});
