/**
 * Issue 33, item 1: one tenant's invalid entity configuration is refused alone, at start as while running, from
 * the entities folder as from the tenant API. The service starts; every other tenant and entity serves; the
 * refused entity answers DB_ENTITY_CONFIG_INVALID naming its source, field and rule (HTTP, and the rejections
 * topic for a delta from a Kafka client); /ready stays 200 with a degraded part; the gauge counts the refusals;
 * `deltabroker entities list` names them with the reason.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { loadSchemas, type DeltaEnvelope } from '../../src/log';
import { PIPELINE_TOPICS } from '../../src/log/topology';
import { runCli } from '../integration/cli/run-cli';
import { defaultConfigInput } from '../unit/tenant/fixtures';
import { testEntitiesDir } from '../support/entities';
import { post, startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const schemas = loadSchemas();

const account = (tenant: string, entity: string, extra = ''): string =>
  `tenant: ${tenant}\nentity: ${entity}\nkey: [accountId]\nfields:\n  accountId: { type: string, required: true }\n  name: { type: string }\nroles:\n  admin: { operations: '*' }\n${extra}`;
/** The fault of the issue: evil's entity writes to a topic of acme's namespace. */
const OUTSIDE_NAMESPACE = 'persistence:\n  topic: acme.merchant_account.events\n';

function write(dir: string, tenant: string, file: string, text: string): void {
  mkdirSync(path.join(dir, tenant), { recursive: true });
  // Write then rename, as editors and config management do.
  writeFileSync(path.join(dir, tenant, `${file}.tmp`), text);
  renameSync(path.join(dir, tenant, `${file}.tmp`), path.join(dir, tenant, file));
}

interface Ready {
  status: string;
  checks: { name: string; status: string }[];
  degraded: { name: string; refused: number; reason: string }[];
}

const readyOf = async (t: TestService): Promise<{ status: number; body: Ready }> => {
  const res = await fetch(`${t.url}/ready`);
  return { status: res.status, body: (await res.json()) as Ready };
};

/** The sum of deltabroker_refused_entity_configs over its series, and the series. */
const refusedGauge = async (t: TestService): Promise<{ total: number; series: string[] }> => {
  const text = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${await t.token(['operator'])}` } })).text();
  const series = text.split('\n').filter((l) => l.startsWith('deltabroker_refused_entity_configs{'));
  return { total: series.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0), series };
};

const delta = (tenant: string, entity: string, key: string): DeltaEnvelope => ({
  id: randomUUID(),
  requestId: null,
  tenant,
  entity,
  operation: 'create',
  key,
  payload: JSON.stringify({ accountId: key, name: 'From Kafka' }),
  actor: { user: 'batch', roles: ['admin'] },
  origin: { datacenter: 'dc1' },
  occurredAt: Date.now(),
  expectedVersion: null,
  retryOf: null,
});

const INVALID = { code: 'DB_ENTITY_CONFIG_INVALID', stage: 'entity-config' };

describe('an invalid entity configuration in the entities folder is refused alone', () => {
  const dir = testEntitiesDir();
  write(dir, 'evil', 'account.yaml', account('evil', 'account'));
  write(dir, 'evil', 'merchant_account.yaml', account('evil', 'merchant_account', OUTSIDE_NAMESPACE));
  write(dir, 'evil', 'Bad-Name.yaml', account('evil', 'bad_name'));
  let t: TestService;
  const call = async (tenant: string, entity: string, operation: string, payload: unknown) =>
    post(`${t.url}/`, { dispatch: { entity, operation }, payload }, { authorization: `Bearer ${await t.token(['admin'], { tenant })}` });

  beforeAll(async () => {
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: dir } });
  });
  afterAll(() => t?.stop());

  test('the service starts, and every other tenant and entity writes and reads', async () => {
    const acme = await call('acme', 'merchant_account', 'create', { merchantId: 'm-1', name: 'Ada' });
    expect(acme.status).toBe(201);
    const evil = await call('evil', 'account', 'create', { accountId: 'a-1', name: 'Mallory' });
    expect(evil.status).toBe(201);
    const read = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'read', after: acme.body.position }, payload: 'eq(merchantId,m-1)' },
      { authorization: `Bearer ${await t.token(['admin'])}` },
    );
    expect(read.body.items).toEqual([expect.objectContaining({ merchantId: 'm-1', name: 'Ada' })]);
  });

  test('the refused entity answers 503 DB_ENTITY_CONFIG_INVALID naming file, field and rule on write, read and search', async () => {
    for (const [operation, payload] of [
      ['create', { accountId: 'a-1', name: 'Mallory' }],
      ['read', ''],
      ['search', { query: { match_all: {} } }],
    ] as const) {
      const res = await call('evil', 'merchant_account', operation, payload);
      expect([res.status, res.headers.get('content-type')]).toEqual([503, expect.stringContaining('application/problem+json')]);
      expect(res.body).toMatchObject({
        ...INVALID,
        source: 'evil/merchant_account.yaml',
        field: 'persistence.topic',
        rule: 'tenant-namespace',
        detail: expect.stringContaining('outside the tenant\'s namespace: it must start with "evil."'),
      });
    }
  });

  test('a delta for it from a Kafka client goes to the rejections topic, and the partition goes on', async () => {
    const refused = delta('evil', 'merchant_account', 'k-1');
    const accepted = delta('evil', 'account', 'k-2');
    // Each with its actor's proof (a JWT in the authorization header), as a Kafka producer sends it.
    const headers = { authorization: `Bearer ${await t.token(['admin'], { tenant: 'evil', sub: 'batch' })}` };
    await t.service.log.publish(
      // One message key: both land on one partition, the refused delta first.
      [refused, accepted].map((d) => ({ topic: PIPELINE_TOPICS.deltas, key: 'evil/one-partition', value: d, schema: schemas.DeltaEnvelope, headers })),
    );
    const rejections = await eventually(
      () => readTopic(t.service.log, PIPELINE_TOPICS.rejections, schemas.Rejection),
      (r) => r.some((x) => x.value.deltaId === refused.id),
    );
    expect(rejections.find((x) => x.value.deltaId === refused.id)?.value).toMatchObject({
      stage: 'entity-config',
      reason: 'DB_ENTITY_CONFIG_INVALID',
      message: expect.stringContaining('evil/merchant_account.yaml: persistence.topic'),
    });
    const rows = await eventually(
      async () => (await t.service.sql.query<{ accountId: string }>('select "accountId" from tenant_evil.account order by 1')).rows,
      (r) => r.some((x) => x.accountId === 'k-2'),
    );
    expect(rows.map((r) => r.accountId)).toEqual(['a-1', 'k-2']);
  });

  test('/ready stays 200 and counts the refusals under degraded; the gauge counts them', async () => {
    const ready = await readyOf(t);
    expect(ready.status).toBe(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.degraded).toEqual([{ name: 'entity-configs', refused: 2, reason: expect.stringContaining('deltabroker entities list') }]);
    // /ready is public: it never names a tenant. The log does, once per refusal.
    expect(JSON.stringify(ready.body)).not.toContain('evil');
    const logged = t.logLines.filter((l) => l.includes('entity configuration refused')).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({ level: 50, tenant: 'evil', entity: 'Bad-Name', source: 'evil/Bad-Name.yaml', rule: 'file-name' }),
      expect.objectContaining({ level: 50, tenant: 'evil', entity: 'merchant_account', field: 'persistence.topic', rule: 'tenant-namespace' }),
    ]);
    const gauge = await refusedGauge(t);
    expect(gauge.total).toBe(2);
    expect(gauge.series).toEqual(
      expect.arrayContaining([
        'deltabroker_refused_entity_configs{code="DB_ENTITY_CONFIG_INVALID",rule="tenant-namespace"} 1',
        'deltabroker_refused_entity_configs{code="DB_ENTITY_CONFIG_INVALID",rule="file-name"} 1',
      ]),
    );
  });

  test('deltabroker entities list shows the refused entities with the reason', async () => {
    const cli = loadConfig({ DELTABROKER_ENTITIES_DIR: dir });
    const printed = await runCli(cli, ['entities', 'list']);
    expect(printed).toMatch(/^evil\s+account\s/m);
    expect(printed).toMatch(
      /^evil\s+merchant_account\s+evil\/merchant_account\.yaml\s+persistence\.topic\s+tenant-namespace\s+.*outside the tenant's namespace/m,
    );
    expect(printed).toMatch(/^evil\s+Bad-Name\s+evil\/Bad-Name\.yaml\s+\(file name\)\s+file-name\s+/m);
    const json = JSON.parse(await runCli(cli, ['entities', 'list', '--json'])) as { entities: unknown[]; refused: unknown[] };
    expect(json.refused).toEqual([
      expect.objectContaining({ tenant: 'evil', entity: 'Bad-Name', source: 'evil/Bad-Name.yaml', rule: 'file-name', code: 'DB_ENTITY_CONFIG_INVALID' }),
      expect.objectContaining({ tenant: 'evil', entity: 'merchant_account', field: 'persistence.topic', rule: 'tenant-namespace' }),
    ]);
    expect(json.entities).toContainEqual(expect.objectContaining({ tenant: 'evil', entity: 'account' }));
  });

  test('while running, a file that breaks is refused alone the same way, and serves again once fixed', async () => {
    write(dir, 'evil', 'account.yaml', account('evil', 'account', OUTSIDE_NAMESPACE));
    // The service checks a file again at most a second after it last looked.
    const broken = await eventually(
      () => call('evil', 'account', 'create', { accountId: randomUUID(), name: 'Mallory' }),
      (r) => r.status !== 201,
    );
    expect([broken.status, broken.body]).toEqual([503, expect.objectContaining({ ...INVALID, source: 'evil/account.yaml', rule: 'tenant-namespace' })]);
    expect((await call('acme', 'merchant_account', 'create', { merchantId: 'm-2', name: 'Bo' })).status).toBe(201);
    expect((await readyOf(t)).body.degraded).toEqual([expect.objectContaining({ refused: 3 })]);
    expect((await refusedGauge(t)).total).toBe(3);

    write(dir, 'evil', 'account.yaml', account('evil', 'account'));
    const fixed = await eventually(
      () => call('evil', 'account', 'create', { accountId: randomUUID(), name: 'Mallory' }),
      (r) => r.status === 201,
    );
    expect(fixed.body).toMatchObject({ status: 'accepted' });
    expect((await readyOf(t)).body.degraded).toEqual([expect.objectContaining({ refused: 2 })]);
  });
});

describe('an invalid entity configuration from the tenant API is refused alone', () => {
  const configs = [
    defaultConfigInput(),
    { tenant: 'evil', entity: 'account', key: 'accountId', fields: { accountId: 'string' }, roles: { admin: { operations: '*' } } },
    {
      tenant: 'evil',
      entity: 'merchant_account',
      key: 'accountId',
      fields: { accountId: 'string' },
      roles: { admin: { operations: '*' } },
      persistence: { topic: 'acme.merchant_account.events' },
    },
    { tenant: 'evil', entity: 'Bad-Name', key: 'accountId', fields: { accountId: 'string' } },
  ] as Record<string, unknown>[];
  let api: Server;
  let baseUrl: string;
  let t: TestService;

  beforeAll(async () => {
    api = createServer((req, res) => {
      const send = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const one = /^\/api\/tenants\/([^/]+)\/entities\/([^/]+)$/.exec(req.url ?? '');
      if (req.url === '/api/entities') return send(200, { items: configs });
      const found = one && configs.find((c) => c.tenant === one[1] && c.entity === one[2]);
      return found ? send(200, found) : send(404, { title: 'not found' });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/api`;
    t = await startTestService({ env: { DELTABROKER_TENANT_API_URL: baseUrl } });
  });
  afterAll(async () => {
    await t?.stop();
    api.closeAllConnections();
    await new Promise((resolve) => api.close(resolve));
  });

  test('the service starts; acme and evil/account serve; evil/merchant_account answers DB_ENTITY_CONFIG_INVALID', async () => {
    const as = async (tenant: string) => ({ authorization: `Bearer ${await t.token(['admin'], { tenant })}` });
    expect(
      (
        await post(
          `${t.url}/`,
          { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-1', name: 'Ada' } },
          await as('acme'),
        )
      ).status,
    ).toBe(201);
    expect((await post(`${t.url}/`, { dispatch: { entity: 'account', operation: 'create' }, payload: { accountId: 'a-1' } }, await as('evil'))).status).toBe(
      201,
    );
    const refused = await post(`${t.url}/`, { dispatch: { entity: 'merchant_account', operation: 'read' }, payload: '' }, await as('evil'));
    expect([refused.status, refused.body]).toEqual([
      503,
      expect.objectContaining({
        ...INVALID,
        source: 'tenant API /tenants/evil/entities/merchant_account',
        field: 'persistence.topic',
        rule: 'tenant-namespace',
      }),
    ]);
    expect(JSON.stringify(refused.body)).not.toContain('127.0.0.1');
  });

  test('/ready is 200 with both refusals counted; the gauge and the CLI show them', async () => {
    const ready = await readyOf(t);
    expect([ready.status, ready.body.degraded]).toEqual([200, [expect.objectContaining({ name: 'entity-configs', refused: 2 })]]);
    expect((await refusedGauge(t)).total).toBe(2);
    const printed = await runCli(loadConfig({ DELTABROKER_TENANT_API_URL: baseUrl }), ['entities', 'list']);
    expect(printed).toMatch(/^evil\s+merchant_account\s+tenant API \/tenants\/evil\/entities\/merchant_account\s+persistence\.topic\s+tenant-namespace\s/m);
    expect(printed).toMatch(/^evil\s+Bad-Name\s+.*\s+entity\s+pattern\s+/m);
  });
});
