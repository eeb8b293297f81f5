/**
 * Issue 15 on a running service (embedded broker and registry, PostgreSQL): the attacks that reached another
 * tenant's data, names or ids, each shown closed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadSchemas, type DeltaEnvelope } from '../../src/log';
import { PIPELINE_TOPICS } from '../../src/log/topology';
import { testEntitiesDir } from '../support/entities';
import { post, startTestService, type JsonResponse, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const schemas = loadSchemas();
const FIELDS = `fields:
  merchantId: { type: string, required: true }
  name: { type: string, required: true }
  iban: { type: string, sensitive: true }
roles:
  admin: { operations: '*' }`;

/** Squatters: default names that used to map onto acme's table and index, and explicit ones naming them. */
function entitiesDir(): string {
  const dir = testEntitiesDir();
  const file = (tenant: string, entity: string, extra = '') => {
    mkdirSync(path.join(dir, tenant), { recursive: true });
    writeFileSync(path.join(dir, tenant, `${entity}.yaml`), `tenant: ${tenant}\nentity: ${entity}\nkey: [merchantId]\n${FIELDS}\n${extra}`);
  };
  file('acme_merchant', 'account');
  file('evil', 'account', 'persistence:\n  table: merchant_account\n  index: merchant_account\n');
  return dir;
}

describe("tenants cannot reach each other's data, names or ids", () => {
  let t: TestService;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: entitiesDir() } });
    for (const tenant of ['acme', 'acme_merchant', 'evil']) tokens[tenant] = await t.token(['admin'], { tenant });
  });
  afterAll(() => t.stop());

  const call = (tenant: string, entity: string, operation: string, payload: unknown, headers: Record<string, string> = {}, dispatch: object = {}) =>
    post(`${t.url}/`, { dispatch: { entity, operation, ...dispatch }, payload }, { authorization: `Bearer ${tokens[tenant]}`, ...headers });
  const after = (res: JsonResponse) => ({ after: res.body.position });
  const deltaStatus = async (tenant: string, id: string) =>
    (await fetch(`${t.url}/deltas/${id}`, { headers: { authorization: `Bearer ${tokens[tenant]}` } }).then((r) => r.json())) as Record<string, unknown>;
  const rows = async (table: string) =>
    (await t.service.sql.query<{ merchantId: string; name: string }>(`select "merchantId", name from ${table} order by 1`)).rows;

  let acmeIban: string;
  let acmeUpdated: JsonResponse;

  test("explicit names: evil naming acme's table and index gets its own; rows, indexes, topics and subjects stay apart", async () => {
    acmeIban = (
      await post(
        `${t.url}/dispatch`,
        { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'DE89370400440532013000' },
        { authorization: `Bearer ${tokens.acme}` },
      )
    ).body.ciphertext as string;
    expect((await call('acme', 'merchant_account', 'create', { merchantId: 'm-1', name: 'Ada', iban: acmeIban })).status).toBe(201);
    const evilWrite = await call('evil', 'account', 'create', { merchantId: 'm-1', name: 'Mallory' });
    expect(evilWrite.body).toMatchObject({ status: 'accepted', version: 1, position: { topic: 'evil.account.events' } });
    acmeUpdated = await call('acme', 'merchant_account', 'update', { merchantId: 'm-1', name: 'Ada L.', iban: acmeIban }, {}, { expectedVersion: 1 });
    expect(acmeUpdated.body).toMatchObject({ status: 'accepted', version: 2 });

    const evilRead = await call('evil', 'account', 'read', 'sort(+merchantId)', {}, after(evilWrite));
    expect(evilRead.body).toEqual({ items: [{ merchantId: 'm-1', name: 'Mallory', iban: null }], count: 1 });
    const acmeRead = await call('acme', 'merchant_account', 'read', 'eq(merchantId,m-1)', {}, after(acmeUpdated));
    expect(acmeRead.body.items).toEqual([expect.objectContaining({ merchantId: 'm-1', name: 'Ada L.', iban: acmeIban })]);
    const evilSearch = await call('evil', 'account', 'search', { query: { match_all: {} } }, {}, after(evilWrite));
    expect((evilSearch.body.hits as { hits: unknown[] }).hits).toEqual([
      expect.objectContaining({ _index: 'evil__merchant_account', _id: 'm-1', _source: { merchantId: 'm-1', name: 'Mallory' } }),
    ]);

    expect(await rows('"tenant_acme"."merchant_account"')).toEqual([{ merchantId: 'm-1', name: 'Ada L.' }]);
    expect(await rows('"tenant_evil"."merchant_account"')).toEqual([{ merchantId: 'm-1', name: 'Mallory' }]);
    const index = async (name: string) => (await t.service.sql.query<{ name: string }>(`select source->>'name' as name from search."${name}"`)).rows;
    expect(
      await eventually(
        () => index('acme__merchant_account'),
        (r) => r[0]?.name === 'Ada L.',
      ),
    ).toEqual([{ name: 'Ada L.' }]);
    expect(await index('evil__merchant_account')).toEqual([{ name: 'Mallory' }]);
    expect((await t.service.sql.query(`select to_regclass('public.acme_merchant_account') as t`)).rows[0]).toEqual({ t: null });

    const tenantsOn = async (topic: string) => [...new Set((await readTopic(t.service.log, topic, schemas.EntityEvent)).map((r) => r.value.tenant))];
    expect(await tenantsOn('acme.merchant_account.events')).toEqual(['acme']);
    expect(await tenantsOn('evil.account.events')).toEqual(['evil']);
    const subjects = (await fetch(`${t.service.registryUrl}/subjects`).then((r) => r.json())) as string[];
    expect(subjects).toEqual(expect.arrayContaining(['acme.merchant_account.events-value', 'evil.account.events-value']));

    const verify = await post(`${t.url}/admin/verify`, { entity: 'merchant_account' }, { authorization: `Bearer ${tokens.acme}` });
    const job = await eventually(
      () =>
        fetch(`${t.url}/admin/replay/${verify.body.id as string}`, { headers: { authorization: `Bearer ${tokens.acme}` } }).then(
          (r) => r.json() as Promise<{ status: string }>,
        ),
      (j) => j.status !== 'running' && j.status !== 'queued',
      30_000,
    );
    expect(job).toMatchObject({ status: 'succeeded', result: { equal: true, differingRows: 0 } });
  });

  test("default names: acme_merchant/account, whose topic Kafka would take for acme's, is refused and touches nothing of acme's", async () => {
    const name_taken = { code: 'DB_CONFLICT', rule: 'name-taken', field: 'persistence.topic', stage: 'entity-config' };
    for (const [operation, payload] of [
      ['create', { merchantId: 'm-1', name: 'Squatter' }],
      ['read', ''],
      ['search', {}],
    ] as const) {
      const res = await call('acme_merchant', 'account', operation, payload);
      expect([res.status, res.body]).toEqual([409, expect.objectContaining(name_taken)]);
      expect(JSON.stringify(res.body)).not.toContain('acme/');
    }
    // A delta published straight to the deltas topic is refused by the pipeline, on the rejections topic.
    const id = randomUUID();
    const delta: DeltaEnvelope = {
      id,
      requestId: null,
      tenant: 'acme_merchant',
      entity: 'account',
      operation: 'create',
      key: 'm-1',
      payload: JSON.stringify({ merchantId: 'm-1', name: 'Squatter' }),
      actor: { user: 'batch', roles: ['admin'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    };
    await t.service.log.publish([{ topic: PIPELINE_TOPICS.deltas, key: 'acme_merchant/account/m-1', value: delta, schema: schemas.DeltaEnvelope }]);
    const rejected = await eventually(
      () => readTopic(t.service.log, PIPELINE_TOPICS.rejections, schemas.Rejection),
      (r) => r.some((x) => x.value.deltaId === id),
    );
    expect(rejected.find((x) => x.value.deltaId === id)?.value).toMatchObject({ stage: 'entity-config', reason: 'DB_CONFLICT' });
    const acmeRead = await call('acme', 'merchant_account', 'read', 'eq(merchantId,m-1)', {}, after(acmeUpdated));
    expect(acmeRead.body.items).toEqual([expect.objectContaining({ name: 'Ada L.', iban: acmeIban })]);
  });

  test("a squatted Idempotency-Key does not affect another tenant's writes or answers", async () => {
    const key = { 'idempotency-key': 'acme-upd-key-1' };
    const squat = await call('evil', 'account', 'create', { merchantId: 'm-2', name: 'Mallory' }, key);
    expect(squat.body).toMatchObject({ status: 'accepted', version: 1 });
    const first = await call('acme', 'merchant_account', 'update', { merchantId: 'm-1', name: 'Ada 3', iban: acmeIban }, key);
    const second = await call('acme', 'merchant_account', 'update', { merchantId: 'm-1', name: 'Ada 4', iban: acmeIban }, key);
    expect(first.body).toMatchObject({ status: 'accepted', deltaId: 'acme-upd-key-1', version: 3 });
    expect(second.body).toMatchObject({ status: 'accepted', version: 3, eventId: first.body.eventId });
    expect(first.body.eventId).not.toBe(squat.body.eventId);

    const applied = (await readTopic(t.service.log, 'acme.merchant_account.events', schemas.EntityEvent))
      .map((r) => r.value)
      .filter((e) => e.deltaId === 'acme-upd-key-1');
    expect(applied.map((e) => [e.version, e.eventId])).toEqual([[3, first.body.eventId]]);
    expect(await deltaStatus('acme', 'acme-upd-key-1')).toMatchObject({ status: 'accepted', version: 3, position: { topic: 'acme.merchant_account.events' } });
    expect(await deltaStatus('evil', 'acme-upd-key-1')).toMatchObject({ status: 'accepted', version: 1, position: { topic: 'evil.account.events' } });
  });

  test('an unknown delta id is unknown once nothing is in flight, not pending forever', async () => {
    expect(
      await eventually(
        () => deltaStatus('acme', 'never-sent-1'),
        (s) => s.status === 'unknown',
      ),
    ).toEqual({ deltaId: 'never-sent-1', status: 'unknown' });
    // Another tenant's delta is unknown to acme too.
    expect(await deltaStatus('acme_merchant', 'acme-upd-key-1')).toEqual({ deltaId: 'acme-upd-key-1', status: 'unknown' });
  });

  test('tokens whose tenant claim breaks the name pattern get 401 and create no keys', async () => {
    for (const tenant of ['../acme', 'ACME', 'acme ', 'acme%00', 'acme\u0000', 'ａｃｍｅ', 'acme__x', 'a'.repeat(31)]) {
      const token = await t.token(['admin'], { tenant });
      const whoami = await fetch(`${t.url}/whoami`, { headers: { authorization: `Bearer ${token}` } });
      expect(whoami.status).toBe(401);
      expect(whoami.headers.get('content-type')).toContain('application/problem+json');
      expect(await whoami.json()).toMatchObject({ code: 'DB_UNAUTHENTICATED', stage: 'auth' });
      const encrypt = await post(
        `${t.url}/dispatch`,
        { dispatch: { operation: 'encrypt', method: 'aes' }, payload: 'x' },
        { authorization: `Bearer ${token}` },
      );
      expect(encrypt.status).toBe(401);
    }
    const tenants = (await t.service.sql.query<{ tenant: string }>('select distinct tenant from crypto_keys order by 1')).rows.map((r) => r.tenant);
    expect(tenants).toEqual(['acme']);
  });

  test('a 300-character delta id is answered in problem+json after authentication', async () => {
    const long = `${t.url}/deltas/${'x'.repeat(300)}`;
    const anonymous = await fetch(long);
    expect([anonymous.status, anonymous.headers.get('content-type')]).toEqual([401, expect.stringContaining('application/problem+json')]);
    const authed = await fetch(long, { headers: { authorization: `Bearer ${tokens.acme}` } });
    expect(authed.status).toBe(400);
    expect(await authed.json()).toMatchObject({ code: 'DB_VALIDATION', field: 'id', rule: 'pattern', stage: 'http' });
  });

  /** A delta as a producer would put it on the deltas topic (the service's own log client: no actor proof). */
  const envelope = (over: Partial<DeltaEnvelope>): DeltaEnvelope => ({
    id: randomUUID(),
    requestId: null,
    tenant: 'acme',
    entity: 'merchant_account',
    operation: 'create',
    key: 'z-4',
    payload: '{"merchantId":"z-4","name":"C"}',
    actor: { user: 'batch', roles: ['admin'] },
    origin: { datacenter: 'dc1' },
    occurredAt: Date.now(),
    expectedVersion: null,
    retryOf: null,
    ...over,
  });

  test('a lone UTF-16 surrogate is refused, over HTTP and from the log, not stored as U+FFFD', async () => {
    const headers = { authorization: `Bearer ${tokens.acme}` };
    const write = await post(
      `${t.url}/`,
      '{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":{"merchantId":"s-1","name":"A\\ud800"}}',
      headers,
    );
    expect([write.status, write.body]).toEqual([400, expect.objectContaining({ code: 'DB_VALIDATION', field: 'payload.name', rule: 'utf16', stage: 'http' })]);
    const encrypt = await post(`${t.url}/dispatch`, '{"dispatch":{"operation":"encrypt","method":"aes"},"payload":"x\\udc00"}', headers);
    expect([encrypt.status, encrypt.body]).toEqual([400, expect.objectContaining({ field: 'payload', rule: 'utf16' })]);
    const paired = await post(`${t.url}/dispatch`, '{"dispatch":{"operation":"encrypt","method":"aes"},"payload":"\\ud83d\\ude00"}', headers);
    expect(paired.status).toBe(200);

    const delta = envelope({ key: 's-2', payload: '{"merchantId":"s-2","name":"B\\udfff"}' });
    const { id } = delta;
    await t.service.log.publish([{ topic: PIPELINE_TOPICS.deltas, key: 'acme/merchant_account/s-2', value: delta, schema: schemas.DeltaEnvelope }]);
    const rejected = await eventually(
      () => readTopic(t.service.log, PIPELINE_TOPICS.rejections, schemas.Rejection),
      (r) => r.some((x) => x.value.deltaId === id),
    );
    expect(rejected.find((x) => x.value.deltaId === id)?.value).toMatchObject({ stage: 'validate', reason: 'DB_VALIDATION' });
  });

  test('U+0000, which PostgreSQL cannot store, is refused over HTTP and from the log, and the pipeline goes on for every tenant', async () => {
    const headers = { authorization: `Bearer ${tokens.acme}` };
    const write = (payload: string, more: Record<string, string> = {}) =>
      post(`${t.url}/`, `{"dispatch":{"entity":"merchant_account","operation":"create"},"payload":${payload}}`, { ...headers, ...more });
    const inValue = await write('{"merchantId":"z-1","name":"A\\u0000B"}');
    expect([inValue.status, inValue.body]).toEqual([
      400,
      expect.objectContaining({ code: 'DB_VALIDATION', field: 'payload.name', rule: 'nul-character', stage: 'validate' }),
    ]);
    const inKey = await write('{"merchantId":"z\\u00002","name":"A"}');
    expect([inKey.status, inKey.body]).toEqual([400, expect.objectContaining({ field: 'payload.merchantId', rule: 'nul-character' })]);
    // Its refusal is stored and answered like any other, the name quoting the key with U+FFFD.
    const idempotencyKey = `nul-${randomUUID()}`;
    const inName = await write('{"merchantId":"z-3","name":"A","tags":{"k\\u0000":1}}', { 'idempotency-key': idempotencyKey });
    expect([inName.status, inName.body]).toEqual([400, expect.objectContaining({ field: 'payload.tags.k\u0000', rule: 'nul-character' })]);
    const stored = await fetch(`${t.url}/deltas/${idempotencyKey}`, { headers });
    expect(await stored.json()).toMatchObject({ status: 'refused', details: { field: 'payload.tags.k\ufffd', rule: 'nul-character' } });

    const fromLog = [
      envelope({ id: `${randomUUID()}\u0000` }),
      envelope({ key: 'z\u00005', payload: '{"name":"D"}' }),
      envelope({ tenant: 'acme\u0000' }),
      envelope({ entity: 'merchant_account\u0000' }),
    ];
    await t.service.log.publish(
      fromLog.map((value) => ({ topic: PIPELINE_TOPICS.deltas, key: `${value.tenant}/${value.entity}/${value.key}`, value, schema: schemas.DeltaEnvelope })),
    );
    const rejected = await eventually(
      () => readTopic(t.service.log, PIPELINE_TOPICS.rejections, schemas.Rejection),
      (r) => fromLog.every((d) => r.some((x) => x.value.deltaId === d.id)),
    );
    expect(fromLog.map((d) => rejected.find((x) => x.value.deltaId === d.id)?.value)).toEqual([
      expect.objectContaining({ stage: 'validate', reason: 'DB_VALIDATION', message: expect.stringContaining('delta id') }),
      expect.objectContaining({ stage: 'validate', reason: 'DB_VALIDATION', message: expect.stringContaining('record key') }),
      expect.objectContaining({ stage: 'entity-config' }),
      expect.objectContaining({ stage: 'entity-config' }),
    ]);
    // Before, the first such delta failed every statement of its batch: no later write of any tenant was decided.
    const later = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'z-6', name: 'E' } },
      headers,
    );
    expect([later.status, later.body.status]).toEqual([201, 'accepted']);
  });
});
