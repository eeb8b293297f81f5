/**
 * The query service on a real PostgreSQL: rows written by the table projection and documents in the Postgres
 * search adapter, read back through `read` (RQL) and `search` (query DSL) with the caller's permissions, and
 * read-your-writes waits on the projectors' progress.
 */
import type { Principal } from '../../../src/auth/principal';
import { QueryService } from '../../../src/broker/query-service';
import type { EntityEvent, RecordBatch } from '../../../src/log';
import { silentLogger } from '../../../src/logger';
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { migrate } from '../../../src/store/migrator';
import { InMemoryEntityConfigSource, physicalNamesOf } from '../../../src/tenant';
import { readCheckpoint, TableProjection } from '../../../projections/postgres';
import { AppliedPositions } from '../../../projections/postgres/applied-positions';
import { indexDefinitionOf } from '../../../projections/search/search-projector';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';
import { defaultConfigInput } from '../../unit/tenant/fixtures';

const TOPIC = 'acme.merchant_account.events';
const reader: Principal = { user: 'r', tenant: 'acme', roles: ['reader'] };
const admin: Principal = { user: 'a', tenant: 'acme', roles: ['admin'] };

const merchants = [
  { merchantId: 'm-1', name: 'Ada Shoes', country: 'DE', mcc: 5661, iban: 'aes256skv1:default:v1:AAAA' },
  { merchantId: 'm-2', name: 'Bob Books', country: 'FR', mcc: 5942 },
  { merchantId: 'm-3', name: 'Cyd Shoes', country: 'DE', mcc: 5661 },
];

function batchOf(docs: Record<string, unknown>[]): RecordBatch<EntityEvent> {
  return {
    topic: TOPIC,
    partition: 0,
    rejected: 0,
    highWatermark: String(docs.length),
    records: docs.map((doc, i) => ({
      topic: TOPIC,
      partition: 0,
      offset: String(i),
      key: `acme/merchant_account/${String(doc.merchantId)}`,
      headers: {},
      timestamp: 0,
      schemaId: 1,
      value: {
        eventId: `e-${i}`,
        deltaId: `d-${i}`,
        requestId: null,
        tenant: 'acme',
        entity: 'merchant_account',
        operation: 'create',
        key: String(doc.merchantId),
        version: 1,
        payload: JSON.stringify(doc),
        actor: { user: 'u', roles: ['admin'] },
        origin: { datacenter: 'dc1' },
        occurredAt: 0,
        recordedAt: 0,
      },
    })),
  };
}

describe('query service', () => {
  let store: ScratchSql;
  let queries: QueryService;
  let tables: AppliedPositions;
  let index: AppliedPositions;

  beforeAll(async () => {
    store = await scratchPostgres('query_service');
    await migrate(store.sql, silentLogger());
    const entities = new InMemoryEntityConfigSource([defaultConfigInput()]);
    const config = await entities.get('acme', 'merchant_account');
    if (!config) throw new Error('the shipped configuration is missing');
    // The projectors' own progress: the table projection's stored checkpoint, and a search side told as it applies.
    const progressOf = (projector: string) => new AppliedPositions((topic, partition) => readCheckpoint(store.sql, { projector, topic, partition }));
    tables = progressOf('query-test-tables');
    index = progressOf('query-test-search');
    await new TableProjection({ sql: store.sql, entities, logger: silentLogger(), projector: 'query-test-tables' }).apply(batchOf(merchants));
    const search = createPostgresSearchIndex(store.sql);
    await search.ensureIndex(indexDefinitionOf(config));
    await search.upsert(
      physicalNamesOf(config).index,
      merchants.map((m) => ({ id: m.merchantId, version: 1, source: m })),
    );
    queries = new QueryService({ sql: store.sql, entities, search, tables, index, consistencyTimeoutMs: 300 });
  });
  afterAll(async () => {
    tables?.close();
    index?.close();
    await store?.close();
  });

  test('read answers the matching rows, with paging', async () => {
    const page = await queries.read(admin, 'merchant_account', 'eq(country,DE),sort(+merchantId),limit(1)');
    expect(page.count).toBe(2);
    expect(page.items.map((r) => r.merchantId)).toEqual(['m-1']);
    expect(page.next).toBeDefined();
    const rest = await queries.read(admin, 'merchant_account', page.next);
    expect(rest.items.map((r) => r.merchantId)).toEqual(['m-3']);
    expect(rest.next).toBeUndefined();
  });

  test('a reader never sees the fields its roles may not read, in rows or hits; naming one is refused', async () => {
    const [row] = (await queries.read(reader, 'merchant_account', 'eq(merchantId,m-1)')).items;
    expect(row).toMatchObject({ merchantId: 'm-1', name: 'Ada Shoes' });
    expect(row).not.toHaveProperty('iban');
    expect((await queries.read(admin, 'merchant_account', 'eq(merchantId,m-1)')).items[0]).toHaveProperty('iban');
    const hits = await queries.search(reader, 'merchant_account', { query: { match: { name: 'shoes' } }, sort: ['merchantId'] });
    expect(hits.hits.hits.map((h) => h._id)).toEqual(['m-1', 'm-3']);
    expect(hits.hits.hits[0]?._source).not.toHaveProperty('iban');
    await expect(queries.search(reader, 'merchant_account', { query: { exists: { field: 'iban' } } })).rejects.toMatchObject({ code: 'DB_FORBIDDEN' });
  });

  test('refuses unknown entities, roles without the operation and a non-string RQL, naming the stage', async () => {
    await expect(queries.read(admin, 'invoice', 'eq(a,1)')).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { stage: 'read', rule: 'configured-entity' },
    });
    await expect(queries.search({ ...admin, tenant: 'globex' }, 'merchant_account', {})).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { stage: 'search' },
    });
    const writer: Principal = { user: 'w', tenant: 'acme', roles: ['writer'] };
    await expect(queries.read(writer, 'merchant_account', 'eq(country,DE)')).rejects.toMatchObject({ code: 'DB_FORBIDDEN', details: { stage: 'read' } });
    await expect(queries.search(writer, 'merchant_account', {})).rejects.toMatchObject({ code: 'DB_FORBIDDEN', details: { stage: 'search' } });
    await expect(queries.read(admin, 'merchant_account', { eq: 1 })).rejects.toMatchObject({ code: 'DB_VALIDATION', details: { rule: 'rql-string' } });
  });

  test('a read after a write waits for the projection to reach it, and times out naming the consistency rule', async () => {
    expect((await queries.read(admin, 'merchant_account', 'eq(merchantId,m-2)', { topic: TOPIC, partition: 0, offset: '2' })).count).toBe(1);
    await expect(queries.read(admin, 'merchant_account', 'eq(merchantId,m-2)', { topic: TOPIC, partition: 0, offset: '3' })).rejects.toMatchObject({
      code: 'DB_TIMEOUT',
      details: { stage: 'read', field: 'dispatch.after', rule: 'consistency' },
    });
    await expect(queries.search(admin, 'merchant_account', {}, { topic: TOPIC, partition: 0, offset: '0' })).rejects.toMatchObject({
      code: 'DB_TIMEOUT',
      details: { stage: 'search' },
    });
    setTimeout(() => index.advance(TOPIC, 0, 3n), 10);
    expect(
      (await queries.search(admin, 'merchant_account', { size: 0, track_total_hits: true }, { topic: TOPIC, partition: 0, offset: '2' })).hits.total,
    ).toEqual({ value: 3, relation: 'eq' });
  });
});
