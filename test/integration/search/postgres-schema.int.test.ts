/**
 * The Postgres adapter's tables: what ensureIndex creates, how it migrates when fields change, and that a
 * fresh adapter (another process) finds definitions in the catalog.
 */
import { parseSearchBody } from '../../../src/search/dsl/parse-request';
import { FieldResolver } from '../../../src/search/dsl/fields';
import { compileSearch } from '../../../src/search/postgres/compile-search';
import { allWordsExpression } from '../../../src/search/postgres/field-sql';
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

  const columns = async (table = 'tickets') =>
    (
      await sql.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_schema = 'search' and table_name = $1 order by column_name`,
        [table],
      )
    ).rows.map((r) => r.column_name);
  const indexes = async (table = 'tickets') =>
    (
      await sql.query<{ indexname: string }>(`select indexname from pg_indexes where schemaname = 'search' and tablename = $1 order by indexname`, [table])
    ).rows.map((r) => r.indexname);

  test('concurrent ensureIndex calls create one table with word columns and GIN indexes', async () => {
    const a = createPostgresSearchIndex(sql);
    const b = createPostgresSearchIndex(sql);
    await Promise.all([a.ensureIndex(V1), b.ensureIndex(V1), a.ensureIndex(V1)]);
    expect(await columns()).toEqual(['id', 'source', 'tsv_code', 'tsv_title', 'version']);
    expect(await indexes()).toEqual(['tickets_expr_idx', 'tickets_pkey', 'tickets_source_idx']);
  });

  test('full-text clauses are served by the GIN index on all word columns', async () => {
    const request = parseSearchBody({ query: { bool: { must: [{ match: { title: 'jam' } }, { match_phrase: { code: 'a7' } }] } } }, new FieldResolver(V1));
    const { text, values } = compileSearch('"search"."tickets"', request, allWordsExpression(V1.fields));
    const plan = await sql.transaction(async (tx) => {
      await tx.query('set local enable_seqscan = off');
      return (await tx.query<{ 'QUERY PLAN': string }>(`explain ${text}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('tickets_expr_idx');
  });

  test('changing fields migrates word columns and keeps documents', async () => {
    const index = createPostgresSearchIndex(sql);
    await index.ensureIndex(V1);
    await index.upsert('tickets', [{ id: 't1', version: 1, source: { title: 'printer jam', code: 'A7', body: 'paper stuck' } }]);
    expect((await index.search('tickets', { query: { match: { code: 'a7' } } })).hits.hits).toHaveLength(1);
    await index.ensureIndex(V2);
    expect(await columns()).toEqual(['id', 'source', 'tsv_body', 'tsv_title', 'version']);
    expect(await indexes()).toEqual(['tickets_expr_idx', 'tickets_pkey', 'tickets_source_idx']);
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

  test('a table stored with a generated `search` column loses it and gets the index on all words, documents kept', async () => {
    const table = '"search"."legacy"';
    const words = (f: string) => `to_tsvector('simple'::regconfig, coalesce((source ->> '${f}'), ''))`;
    await sql.query(`create table ${table} (id text primary key, source jsonb not null, version bigint not null)`);
    await sql.query(`create index on ${table} using gin (source jsonb_path_ops)`);
    for (const f of ['title', 'code']) await sql.query(`alter table ${table} add column "tsv_${f}" tsvector generated always as (${words(f)}) stored`);
    await sql.query(`alter table ${table} add column search tsvector generated always as (${words('title')} || ${words('code')}) stored`);
    await sql.query(`create index on ${table} using gin (search)`);
    await sql.query(`insert into "search"."_indexes" (name, definition) values ('legacy', $1::jsonb)`, [JSON.stringify({ ...V1, name: 'legacy' })]);
    await sql.query(`insert into ${table} (id, source, version) values ('l1', '{"title": "printer jam", "code": "A7"}', 1)`);

    const index = createPostgresSearchIndex(sql);
    await index.ensureIndex({ ...V1, name: 'legacy' });
    expect(await columns('legacy')).toEqual(['id', 'source', 'tsv_code', 'tsv_title', 'version']);
    expect(await indexes('legacy')).toEqual(['legacy_expr_idx', 'legacy_pkey', 'legacy_source_idx']);
    expect((await index.search('legacy', { query: { multi_match: { query: 'jam' } } })).hits.hits.map((h) => h._id)).toEqual(['l1']);
  });

  test('a custom schema keeps indexes apart', async () => {
    const other = createPostgresSearchIndex(sql, { schema: 'search_tenant_b' });
    await other.ensureIndex(V1);
    expect((await other.search('tickets', {})).hits.total).toEqual({ value: 0, relation: 'eq' });
    expect((await createPostgresSearchIndex(sql).search('tickets', {})).hits.total).toEqual({ value: 1, relation: 'eq' });
  });
});
