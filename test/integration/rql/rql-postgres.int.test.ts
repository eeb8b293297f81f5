/**
 * RQL against a real PostgreSQL: every operator, typed values, sorting and paging over seeded rows, with the
 * exact rows checked; injection attempts in values and field names. The suite's entity belongs to a tenant of
 * its own, whose schema it makes in the `test` database and drops afterwards.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { compileRql, COLUMN_TYPES, decodeCount, decodeRow, SYSTEM_COLUMNS, type CompileOptions } from '../../../src/store/rql';
import { quoteIdent, quoteQualified } from '../../../src/store/sql-identifier';
import { parseEntityConfig, physicalNamesOf, readableFields } from '../../../src/tenant';
import { rqlEntityInput } from '../../unit/rql/fixtures';

const DATABASE_URL = process.env.TEST_RQL_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const entity = parseEntityConfig({ ...rqlEntityInput('merchants'), tenant: `rql${randomBytes(5).toString('hex')}` });
const { schema } = physicalNamesOf(entity);
let client: Client;

/** Connects to the test database, creating it first on a machine that lacks it. */
async function connect(): Promise<Client> {
  const c = new Client({ connectionString: DATABASE_URL });
  try {
    await c.connect();
    return c;
  } catch (e) {
    if ((e as { code?: string }).code !== '3D000') throw e;
    const url = new URL(DATABASE_URL);
    const name = url.pathname.slice(1);
    url.pathname = '/postgres';
    const admin = new Client({ connectionString: url.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`).catch((err: { code?: string }) => {
      if (err.code !== '42P04') throw err; // created meanwhile by another suite
    });
    await admin.end();
    const again = new Client({ connectionString: DATABASE_URL });
    await again.connect();
    return again;
  }
}

type Row = Record<string, unknown>;
const ROWS: Row[] = [
  {
    merchantId: 'm01',
    name: 'ACME GmbH',
    country: 'DE',
    mcc: 5812,
    score: 4.5,
    active: true,
    openedAt: '2020-01-15T00:00:00Z',
    meta: { tier: 'gold' },
    iban: 'aes256skv1:k:v1:AAA',
  },
  {
    merchantId: 'm02',
    name: 'acme gmbh, Berlin',
    country: 'DE',
    mcc: 5411,
    score: 3.25,
    active: false,
    openedAt: '2021-06-01T12:30:00Z',
    meta: null,
    iban: 'aes256skv1:k:v1:BBB',
  },
  {
    merchantId: 'm03',
    name: 'Boulangerie Paris',
    country: 'FR',
    mcc: 5462,
    score: 4.9,
    active: true,
    openedAt: '2019-03-10T08:00:00Z',
    meta: { tier: 'silver' },
    iban: null,
  },
  { merchantId: 'm04', name: "O'Brien's Pub", country: 'IE', mcc: 5813, score: null, active: true, openedAt: null, meta: null, iban: null },
  { merchantId: 'm05', name: '100% Pure_Co', country: 'US', mcc: 5999, score: 2, active: null, openedAt: '2022-12-31T23:59:59Z', meta: null, iban: null },
  { merchantId: 'm06', name: 'Zürich Uhren', country: 'CH', mcc: 5944, score: 5, active: true, openedAt: '2018-07-04T00:00:00Z', meta: null, iban: null },
  {
    merchantId: 'm07',
    name: 'back\\slash & (parens)',
    country: null,
    mcc: null,
    score: 1.5,
    active: false,
    openedAt: '2023-02-28T00:00:00Z',
    meta: null,
    iban: null,
  },
  { merchantId: 'm08', name: 'Café Lumière', country: 'FR', mcc: 5812, score: 4.5, active: true, openedAt: '2020-01-15T00:00:00Z', meta: null, iban: null },
  {
    merchantId: 'm09',
    name: 'true',
    country: 'DE',
    mcc: 9223372036854775807n.toString(),
    score: -1,
    active: false,
    openedAt: '2024-02-29T00:00:00Z',
    meta: null,
    iban: null,
  },
  { merchantId: 'm10', name: 'Zeta Shop', country: 'NL', mcc: 5311, score: 0, active: true, openedAt: '2017-11-11T11:11:11Z', meta: null, iban: null },
];

const admin: CompileOptions = { readableFields: readableFields(entity, ['admin']) };
const reader: CompileOptions = { readableFields: readableFields(entity, ['reader']) };

async function read(q: string, opts: CompileOptions = admin): Promise<{ items: Row[]; count: number; next: string; limitCapped: boolean }> {
  const c = compileRql(q, entity, opts);
  const res = await client.query(c.text, c.values);
  const count = await client.query(c.countText, c.countValues);
  return { items: res.rows.map((r: Row) => decodeRow(r, c)), count: decodeCount(count.rows[0]), next: c.nextQuery, limitCapped: c.limitCapped };
}
const ids = async (q: string, opts?: CompileOptions): Promise<string[]> => (await read(q, opts)).items.map((r) => r.merchantId as string);

beforeAll(async () => {
  client = await connect();
  await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  const cols = Object.entries(entity.fields).map(([name, spec]) => `${quoteIdent(name)} ${COLUMN_TYPES[spec.type]}`);
  const system = Object.entries(SYSTEM_COLUMNS).map(([name, type]) => `${quoteIdent(name)} ${type}`);
  const table = quoteQualified(entity.persistence.table, schema);
  await client.query(`CREATE TABLE ${table} (${[...cols, ...system].join(', ')}, PRIMARY KEY ("merchantId"))`);
  // One statement for all rows, as the projector batches.
  await client.query(
    `INSERT INTO ${table} SELECT r.*, to_jsonb(r) AS _doc, 1 AS _version, 'ev-' || r."merchantId" AS _event_id, '0:' || r."merchantId" AS _position, now() AS _updated_at
       FROM jsonb_to_recordset($1::jsonb) AS r("merchantId" text, name text, country text, mcc bigint, score double precision, active boolean, "openedAt" timestamptz, meta jsonb, iban text)`,
    [JSON.stringify(ROWS)],
  );
});

afterAll(async () => {
  if (client === undefined) return;
  await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  await client.end();
});

describe('comparison operators return exactly the matching rows', () => {
  it.each([
    ['eq(country,DE)', ['m01', 'm02', 'm09']],
    ['ne(country,DE)', ['m03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm10']], // ne keeps the row whose country is null
    ['eq(country,null)', ['m07']],
    ['ne(country,null)', ['m01', 'm02', 'm03', 'm04', 'm05', 'm06', 'm08', 'm09', 'm10']],
    ['lt(mcc,5462)', ['m02', 'm10']],
    ['le(mcc,5462)', ['m02', 'm03', 'm10']],
    ['gt(mcc,5812)', ['m04', 'm05', 'm06', 'm09']],
    ['ge(mcc,5812)', ['m01', 'm04', 'm05', 'm06', 'm08', 'm09']],
    ['eq(mcc,9223372036854775807)', ['m09']],
    ['gt(score,4.5)', ['m03', 'm06']],
    ['le(score,number:0)', ['m09', 'm10']],
    ['eq(active,true)', ['m01', 'm03', 'm04', 'm06', 'm08', 'm10']],
    ['eq(active,boolean:false)', ['m02', 'm07', 'm09']],
    ['eq(active,null)', ['m05']],
    ['ne(active,true)', ['m02', 'm05', 'm07', 'm09']],
    ['eq(openedAt,2020-01-15)', ['m01', 'm08']],
    ['ge(openedAt,date:2022-12-31T23:59:59Z)', ['m05', 'm07', 'm09']],
    ['lt(openedAt,2019-01-01T00:00:00%2B00:00)', ['m06', 'm10']],
    ['gt(openedAt,2022-12-31T23:00:00-01:00)', ['m07', 'm09']],
    ['eq(meta,null)', ['m02', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10']],
    ['ne(meta,null)', ['m01', 'm03']],
  ])('%s', async (q, expected) => {
    expect(await ids(q)).toEqual(expected);
  });
});

describe('set and text operators', () => {
  it.each([
    ['in(country,(FR,CH))', ['m03', 'm06', 'm08']],
    ['in(country,FR,CH)', ['m03', 'm06', 'm08']],
    ['in(mcc,(5812,5311))', ['m01', 'm08', 'm10']],
    ['in(country,())', []],
    ['out(country,(DE,FR))', ['m04', 'm05', 'm06', 'm07', 'm10']], // out keeps the null country
    ['out(mcc,5812,5411)', ['m03', 'm04', 'm05', 'm06', 'm07', 'm09', 'm10']],
    ['contains(name,GmbH)', ['m01']],
    ['contains(name,%25)', ['m05']],
    ['contains(name,%26%20%28)', ['m07']],
    ['like(name,ACME*)', ['m01']],
    ['like(name,*Pub)', ['m04']],
    ['like(name,Z?rich*)', ['m06']],
    ['like(name,100%25 Pure_Co)', ['m05']],
    ['like(name,1__%25*)', []], // _ and % are literal in patterns: only * and ? are wildcards
    ['like(name,*\\\\*)', ['m07']],
    ['match(name,acme*)', ['m01', 'm02']],
    ['match(name,*GMBH*)', ['m01', 'm02']],
    ['match(name,café*)', ['m08']],
    ['match(name,*o%27brien*)', ['m04']],
    ['eq(name,ACME%20GmbH)', ['m01']],
    ['eq(name,acme%20gmbh%2C%20Berlin)', ['m02']],
    ['eq(name,Z%C3%BCrich%20Uhren)', ['m06']],
    ['eq(name,string:true)', ['m09']],
    ['eq(name,%74rue)', ['m09']],
    ["eq(name,O'Brien%27s Pub)", ['m04']],
  ])('%s', async (q, expected) => {
    expect(await ids(q)).toEqual(expected);
  });
});

describe('logic', () => {
  it.each([
    ['eq(country,DE),eq(active,true)', ['m01']],
    ['eq(country,DE)&gt(mcc,5500)', ['m01', 'm09']],
    ['and(eq(country,FR),gt(score,4.6))', ['m03']],
    ['or(eq(country,CH),eq(country,IE))', ['m04', 'm06']],
    ['or(and(eq(country,DE),eq(active,false)),and(eq(country,FR),lt(score,4.6)))', ['m02', 'm08', 'm09']],
    ['not(eq(country,DE))', ['m03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm10']], // null country: not(eq) matches
    ['not(or(eq(active,true),eq(active,false)))', ['m05']],
    ['not(not(eq(country,FR)))', ['m03', 'm08']],
    ['and(or(eq(country,DE),eq(country,FR)),not(in(mcc,(5812))),ge(score,0))', ['m02', 'm03']],
    ['country=FR&mcc=ge=5500', ['m08']],
  ])('%s', async (q, expected) => {
    expect(await ids(q)).toEqual(expected);
  });
});

describe('sorting', () => {
  it('sorts ascending and descending with nulls last, the key breaking ties', async () => {
    expect(await ids('sort(+score)')).toEqual(['m09', 'm10', 'm07', 'm05', 'm02', 'm01', 'm08', 'm03', 'm06', 'm04']);
    expect(await ids('sort(-score)')).toEqual(['m06', 'm03', 'm01', 'm08', 'm02', 'm05', 'm07', 'm10', 'm09', 'm04']);
    expect(await ids('sort(-country,-mcc)')).toEqual(['m05', 'm10', 'm04', 'm08', 'm03', 'm09', 'm01', 'm02', 'm06', 'm07']);
    expect(await ids('sort(-merchantId),limit(3)')).toEqual(['m10', 'm09', 'm08']);
    expect(await ids('sort(openedAt),eq(country,FR)')).toEqual(['m03', 'm08']);
  });
});

describe('paging', () => {
  // Sorted on numbers: text order follows the database's collation, which differs between machines.
  it('walks every row page by page through nextQuery, with a total count', async () => {
    let q = 'ne(merchantId,m05),sort(mcc),limit(3)';
    const seen: string[] = [];
    for (let page = 0; page < 10; page++) {
      const r = await read(q);
      expect(r.count).toBe(9);
      seen.push(...r.items.map((i) => i.merchantId as string));
      if (r.items.length < 3) break;
      q = r.next;
    }
    expect(seen).toEqual(['m10', 'm02', 'm03', 'm01', 'm08', 'm04', 'm06', 'm09', 'm07']);
  });

  it('applies limit(n,offset) and the default and maximum page sizes', async () => {
    expect(await ids('limit(2,4)')).toEqual(['m05', 'm06']);
    expect(await ids('limit(5,8)')).toEqual(['m09', 'm10']);
    expect(await ids('limit(5,100)')).toEqual([]);
    expect((await read('limit(0)')).count).toBe(10);
    expect(await ids('', { ...admin, defaultLimit: 4 })).toEqual(['m01', 'm02', 'm03', 'm04']);
    const capped = await read('limit(5000)', { ...admin, maxLimit: 3 });
    expect(capped.items).toHaveLength(3);
    expect(capped.limitCapped).toBe(true);
  });
});

describe('columns', () => {
  it('returns typed documents: integers, numbers, booleans, ISO timestamps, objects, nulls', async () => {
    const r = await read('in(merchantId,(m01,m09))');
    expect(r.items).toEqual([
      {
        merchantId: 'm01',
        name: 'ACME GmbH',
        country: 'DE',
        mcc: 5812,
        score: 4.5,
        active: true,
        openedAt: '2020-01-15T00:00:00.000Z',
        meta: { tier: 'gold' },
        iban: 'aes256skv1:k:v1:AAA',
      },
      {
        merchantId: 'm09',
        name: 'true',
        country: 'DE',
        mcc: '9223372036854775807',
        score: -1,
        active: false,
        openedAt: '2024-02-29T00:00:00.000Z',
        meta: null,
        iban: null,
      },
    ]);
  });

  it('select() returns only the named fields, meta columns on request', async () => {
    const r = await read('eq(merchantId,m03),select(name,country)', { ...admin, meta: ['_version', '_event_id', '_position'] });
    expect(r.items).toEqual([{ name: 'Boulangerie Paris', country: 'FR', _version: 1, _event_id: 'ev-m03', _position: '0:m03' }]);
  });

  it('never returns iban to a reader, and refuses to filter, sort or select on it', async () => {
    const r = await read('eq(merchantId,m01)', reader);
    expect(r.items).toEqual([
      {
        merchantId: 'm01',
        name: 'ACME GmbH',
        country: 'DE',
        mcc: 5812,
        score: 4.5,
        active: true,
        openedAt: '2020-01-15T00:00:00.000Z',
        meta: { tier: 'gold' },
      },
    ]);
    await expect(read('eq(iban,aes256skv1:k:v1:AAA)', reader)).rejects.toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'iban' } });
    await expect(read('sort(-iban)', reader)).rejects.toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'iban' } });
    await expect(read('select(name,iban)', reader)).rejects.toMatchObject({ code: 'DB_FORBIDDEN', details: { field: 'iban' } });
  });
});

describe('injection attempts fail safely', () => {
  const tableStillThere = async () => {
    const r = await client.query(`SELECT count(*)::int AS n FROM ${quoteQualified(entity.persistence.table, schema)}`);
    expect(r.rows[0].n).toBe(ROWS.length);
  };

  it.each([
    `eq(name,x'%3B DROP TABLE ${schema}.merchants%3B --)`,
    "eq(name,x' OR '1'%3D'1)",
    "eq(name,' OR 1%3D1 --)",
    `in(country,(XX,x'%29%3B DELETE FROM ${schema}.merchants%3B --))`,
    'like(name,*%27 OR %271%27%3D%271)',
    'match(name,%25%27%3B TRUNCATE merchants%3B --)',
    'contains(name,%27%29%3B DROP SCHEMA public CASCADE%3B --)',
    'eq(mcc,string:1%3B DROP TABLE merchants)',
  ])('value %s matches nothing and changes nothing', async (q) => {
    const result = await read(q).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
    if (result instanceof Error) {
      // A value that cannot be an integer is refused before any SQL runs.
      expect(result).toMatchObject({ code: 'DB_VALIDATION', details: { rule: 'type-mismatch' } });
    } else {
      expect(result.items).toEqual([]);
    }
    await tableStillThere();
  });

  it.each([
    'eq(name";DROP TABLE merchants;--,1)',
    'eq(name%22%3B%20DROP%20TABLE%20merchants%3B%20--,1)',
    'sort(+name%22%20DESC%3B%20DROP%20TABLE%20merchants%3B%20--)',
    'select(name%20FROM%20pg_catalog.pg_user%20--)',
    'select(*)',
    'eq(pg_sleep(5),1)',
    'eq(_doc,1)',
  ])('field %s is refused before any SQL runs', async (q) => {
    const err = await read(q).catch((e: unknown) => e);
    expect(err).toMatchObject({ details: { stage: 'read' } });
    expect(['DB_VALIDATION', 'DB_BAD_REQUEST']).toContain((err as { code: string }).code);
    await tableStillThere();
  });
});
