/**
 * The Postgres adapter's tables: what ensureIndex creates, how it migrates when fields change, and that a
 * fresh adapter (another process) finds definitions in the catalog.
 */
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import type { IndexDefinition } from '../../../src/search/search-port';
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import type { SqlClient } from '../../../src/store/sql-client';
import { createFreshDatabase, type FreshDatabase } from '../../support/postgres';

const V1: IndexDefinition = {
  name: 'tickets',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'code', type: 'string' },
  ],
};
const V2: IndexDefinition = {
  name: 'tickets',
  fields: [
    { name: 'title', type: 'string' },
    { name: 'code', type: 'integer' },
    { name: 'body', type: 'string' },
  ],
};

describe('Postgres search adapter: tables and migrations', () => {
  let database: FreshDatabase;
  let sql: SqlClient;

  beforeAll(async () => {
    database = await createFreshDatabase('searchschema');
    sql = await openPgSqlClient(database.url);
  });

  afterAll(async () => {
    await sql.close();
    await database.drop();
  });

  const columns = async () =>
    (
      await sql.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_schema = 'search' and table_name = 'tickets' order by column_name`,
      )
    ).rows.map((r) => r.column_name);
  const indexes = async () =>
    (
      await sql.query<{ indexname: string }>(`select indexname from pg_indexes where schemaname = 'search' and tablename = 'tickets' order by indexname`)
    ).rows.map((r) => r.indexname);

  test('concurrent ensureIndex calls create one table with word columns and GIN indexes', async () => {
    const a = createPostgresSearchIndex(sql);
    const b = createPostgresSearchIndex(sql);
    await Promise.all([a.ensureIndex(V1), b.ensureIndex(V1), a.ensureIndex(V1)]);
    expect(await columns()).toEqual(['id', 'search', 'source', 'tsv_code', 'tsv_title', 'version']);
    expect(await indexes()).toEqual(['tickets_pkey', 'tickets_search_idx', 'tickets_source_idx']);
  });

  test('changing fields migrates word columns and keeps documents', async () => {
    const index = createPostgresSearchIndex(sql);
    await index.ensureIndex(V1);
    await index.upsert('tickets', [{ id: 't1', version: 1, source: { title: 'printer jam', code: 'A7', body: 'paper stuck' } }]);
    expect((await index.search('tickets', { query: { match: { code: 'a7' } } })).hits.hits).toHaveLength(1);
    await index.ensureIndex(V2);
    expect(await columns()).toEqual(['id', 'search', 'source', 'tsv_body', 'tsv_title', 'version']);
    expect((await index.search('tickets', { query: { match: { body: 'stuck' } } })).hits.hits.map((h) => h._id)).toEqual(['t1']);
    expect((await index.search('tickets', { query: { multi_match: { query: 'paper' } } })).hits.hits.map((h) => h._id)).toEqual(['t1']);
    await expect(index.search('tickets', { query: { prefix: { code: 'A' } } })).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { rule: 'field-type' },
    });
  });

  test('a new adapter reads the definition from the catalog without ensureIndex', async () => {
    const fresh = createPostgresSearchIndex(sql);
    const response = await fresh.search('tickets', { query: { match: { body: 'paper' } } });
    expect(response.hits.hits.map((h) => h._id)).toEqual(['t1']);
    await expect(fresh.search('tickets', { query: { term: { nope: 1 } } })).rejects.toMatchObject({ details: { rule: 'unknown-field' } });
  });

  test('names of 63 characters work for the index and its fields', async () => {
    const long = 'n'.repeat(63);
    const index = createPostgresSearchIndex(sql);
    await index.ensureIndex({
      name: long,
      fields: [
        { name: `${'F'.repeat(62)}a`, type: 'string' },
        { name: `${'F'.repeat(62)}b`, type: 'string' },
      ],
    });
    await index.upsert(long, [{ id: 'x', version: 1, source: { [`${'F'.repeat(62)}b`]: 'needle' } }]);
    expect((await index.search(long, { query: { match: { [`${'F'.repeat(62)}b`]: 'needle' } } })).hits.hits.map((h) => h._id)).toEqual(['x']);
    expect((await index.search(long, { query: { match: { [`${'F'.repeat(62)}a`]: 'needle' } } })).hits.hits).toEqual([]);
  });

  test('a custom schema keeps indexes apart', async () => {
    const other = createPostgresSearchIndex(sql, { schema: 'search_tenant_b' });
    await other.ensureIndex(V1);
    expect((await other.search('tickets', {})).hits.total).toEqual({ value: 0, relation: 'eq' });
    expect((await createPostgresSearchIndex(sql).search('tickets', {})).hits.total).toEqual({ value: 1, relation: 'eq' });
  });
});
