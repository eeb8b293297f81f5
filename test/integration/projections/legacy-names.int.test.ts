/**
 * The upgrade to tenant namespaces on a real PostgreSQL: projections made under the old flat names move to
 * their new names when they are provably one entity's, and are left behind (and reported) otherwise.
 */
import { moveLegacyProjections } from '../../../projections/legacy-names';
import { silentLogger } from '../../../src/logger';
import { createPostgresSearchIndex, DEFAULT_SEARCH_SCHEMA } from '../../../src/search/postgres/postgres-search-index';
import { compileRql, decodeRow } from '../../../src/store/rql';
import { SYSTEM_COLUMNS } from '../../../src/store/rql/compiler';
import { migrate } from '../../../src/store/migrator';
import { InMemoryEntityConfigSource, readableFields, type EntityConfig } from '../../../src/tenant';
import { minimalInput } from '../../unit/tenant/fixtures';
import { qualifiedTable } from '../../support/entities';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';

const input = (tenant: string, entity: string) => ({ ...minimalInput(), tenant, entity, roles: { admin: { operations: '*' } } });

describe('moving old projections into tenant namespaces', () => {
  let store: ScratchSql;
  const entities = new InMemoryEntityConfigSource([input('acme', 'merchant_account'), input('acme_merchant', 'account'), input('globex', 'orders')]);
  const config = async (tenant: string, entity: string) => (await entities.get(tenant, entity)) as EntityConfig;

  /** A table as the old projector made it, unqualified, with rows projected from `topics` (one row each). */
  async function oldTable(name: string, rows: [id: string, topic: string][]): Promise<void> {
    const columns = Object.entries({ id: 'text', label: 'text', ...SYSTEM_COLUMNS }).map(([c, t]) => `"${c}" ${t}`);
    await store.sql.query(`create table "${name}" (${columns.join(', ')}, primary key ("id"))`);
    for (const [id, topic] of rows) {
      await store.sql.query(`insert into "${name}" values ($1, $2, $3::jsonb, 1, $4, $5, now())`, [
        id,
        `label ${id}`,
        JSON.stringify({ id, label: `label ${id}` }),
        `e-${id}`,
        `${topic}/0/${id.length}`,
      ]);
    }
  }

  beforeAll(async () => {
    store = await scratchPostgres('legacy');
    await migrate(store.sql, silentLogger());
    await oldTable('globex_orders', [
      ['o-1', 'globex.orders.events'],
      ['o-2', 'globex.orders.events'],
    ]);
    // The attack: both tenants' events were projected into one table.
    await oldTable('acme_merchant_account', [
      ['m-1', 'acme.merchant_account.events'],
      ['m-2', 'acme_merchant.account.events'],
    ]);
    const search = createPostgresSearchIndex(store.sql);
    for (const name of ['globex_orders_search', 'acme_merchant_account_search']) {
      await search.ensureIndex({
        name,
        fields: [
          { name: 'id', type: 'string' },
          { name: 'label', type: 'string' },
        ],
      });
      await search.upsert(name, [{ id: 'x-1', source: { id: 'x-1', label: name }, version: 1 }]);
    }
  });
  afterAll(() => store.close());

  test('moves what one entity provably owns, leaves the rest and says why', async () => {
    const report = await moveLegacyProjections({ sql: store.sql, entities, logger: silentLogger(), searchSchema: DEFAULT_SEARCH_SCHEMA });
    expect(report.moved).toEqual(['table globex_orders → "tenant_globex"."orders"', 'search index globex_orders_search → globex__orders']);
    expect(report.leftBehind).toEqual([
      'table acme_merchant_account: 1 of its 2 rows came from other topics than acme.merchant_account.events of acme/merchant_account',
      'search index acme_merchant_account_search: more than one configured entity had that name',
      'table acme_merchant_account: 1 of its 2 rows came from other topics than acme_merchant.account.events of acme_merchant/account',
      'search index acme_merchant_account_search: more than one configured entity had that name',
    ]);

    const globex = await config('globex', 'orders');
    const compiled = compileRql('sort(+id)', globex, { readableFields: readableFields(globex, ['admin']) });
    expect((await store.sql.query(compiled.text, compiled.values)).rows.map((r) => decodeRow(r, compiled))).toEqual([
      { id: 'o-1', label: 'label o-1' },
      { id: 'o-2', label: 'label o-2' },
    ]);
    const hits = await createPostgresSearchIndex(store.sql).search('globex__orders', { query: { match_all: {} } });
    expect(hits.hits.hits.map((h) => h._source)).toEqual([{ id: 'x-1', label: 'globex_orders_search' }]);

    // Left behind: still where it was, and acme's new table does not exist yet (the projector creates it empty).
    expect((await store.sql.query(`select 1 from "acme_merchant_account"`)).rowCount).toBe(2);
    expect((await store.sql.query('select to_regclass($1) as t', [qualifiedTable(await config('acme', 'merchant_account'))])).rows[0]?.t).toBeNull();
  });

  test('a second start moves nothing again', async () => {
    const again = await moveLegacyProjections({ sql: store.sql, entities, logger: silentLogger(), searchSchema: DEFAULT_SEARCH_SCHEMA });
    expect(again.moved).toEqual([]);
    expect((await store.sql.query(`select count(*)::int as n from ${qualifiedTable(await config('globex', 'orders'))}`)).rows[0]).toEqual({ n: 2 });
  });
});
