import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { retryIdOf, type DeltaVerdict, type RejectionDetail, type RejectionSummary, type RetryReport } from '../../src/broker/rejections';
import { loadConfig, type Config } from '../../src/config';
import { loadSchemas, type DeltaEnvelope, type EntityEvent } from '../../src/log';
import { METRIC_NAMES } from '../../src/observability';
import { recordMessageKey } from '../../src/log/topology';
import { serviceEnginesEnv } from '../support/engines';
import { testEntitiesDir } from '../support/entities';
import { post, startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';
import { runCli, spawnCli } from '../integration/cli/run-cli';
import { parseExposition, valueOf } from '../integration/observability/exposition';

const schemas = loadSchemas();
const PLAINTEXT_IBAN = 'DE89370400440532013000';

type Retried = RetryReport & { verdicts: Record<string, DeltaVerdict> };

/**
 * The scenario: deltas refused at three stages (unknown entity, permission, plaintext sensitive field);
 * two causes fixed (the entity file added, the role granted); the CLI retries them while the service runs; two
 * are accepted and the third refused again; a second retry sends nothing twice.
 */
describe('refused deltas: list, show, fix, retry', () => {
  let t: TestService;
  let entitiesDir: string;
  let cli: Config;
  let cliEnv: Record<string, string>;
  let admin: string;
  const ids = { entity: randomUUID(), permission: '', encryption: '' };

  beforeAll(async () => {
    entitiesDir = testEntitiesDir();
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: entitiesDir } });
    // What an operator's shell has: no brokers, registry or database configured; the service's embedded ports.
    cliEnv = {
      DELTABROKER_DATA_DIR: t.config.dataDir,
      DELTABROKER_KAFKA_PORT: new URL(`kafka://${t.service.brokers[0] ?? ''}`).port,
      DELTABROKER_REGISTRY_PORT: new URL(t.service.registryUrl).port,
      DELTABROKER_ENTITIES_DIR: entitiesDir,
      ...serviceEnginesEnv(),
    };
    cli = loadConfig(cliEnv);
    admin = await t.token(['admin']);

    // 1. An entity the tenant does not have, from a Kafka producer (HTTP refuses it before the log).
    const supplier: DeltaEnvelope = {
      id: ids.entity,
      requestId: null,
      tenant: 'acme',
      entity: 'supplier',
      operation: 'create',
      key: 's-1',
      payload: JSON.stringify({ supplierId: 's-1', name: 'Bolt & Nut' }),
      actor: { user: 'batch', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    };
    // The producer proves its actor with its token; a retry carries that proof again (nothing else makes it trusted).
    const proof = { authorization: `Bearer ${await t.token(['writer'], { sub: 'batch' })}` };
    await t.service.log.publish([
      { topic: 'deltas', key: recordMessageKey('acme', 'supplier', 's-1'), value: supplier, schema: schemas.DeltaEnvelope, headers: proof },
    ]);
    // Refused before the next one is sent: deltas partitions are decided concurrently, and the list is by time.
    await eventually(
      () => list(['--since', '10m']),
      (l) => l.items.length === 1,
    );
    // 2. A role the entity does not grant.
    const auditor = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-audit', name: 'Audited' } },
      {
        authorization: `Bearer ${await t.token(['auditor'], { sub: 'carol' })}`,
        'request-id': 'req-auditor-1',
      },
    );
    expect(auditor.body).toMatchObject({ status: 403, stage: 'permission', code: 'DB_FORBIDDEN' });
    // 3. A sensitive field in plaintext.
    const plaintext = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-plain', name: 'Plain', iban: PLAINTEXT_IBAN } },
      {
        authorization: `Bearer ${await t.token(['writer'])}`,
      },
    );
    expect(plaintext.body).toMatchObject({ status: 400, stage: 'encryption', field: 'payload.iban', rule: 'encrypted' });
  }, 60_000);
  afterAll(() => t.stop());

  const list = async (args: string[] = []) =>
    JSON.parse(await runCli(cli, ['rejections', 'list', '--json', ...args])) as { items: RejectionSummary[]; total: number };
  const byStage = (items: readonly RejectionSummary[], stage: string) => items.filter((i) => i.stage === stage);
  const adminGet = async (url: string, token = admin) => {
    const response = await fetch(`${t.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const eventsOf = async (topic: string, key: string) =>
    (await readTopic(t.service.log, topic, schemas.EntityEvent)).map((e) => e.value).filter((e: EntityEvent) => e.key === key);

  test('list: the three refusals, newest first, with stage, code, field, rule, delta id and Request-ID', async () => {
    const { items } = await eventually(
      () => list(['--since', '10m']),
      (l) => l.items.length === 3,
    );
    expect(items.map((i) => i.stage)).toEqual(['encryption', 'permission', 'entity-config']);
    expect(items[2]).toMatchObject({
      deltaId: ids.entity,
      code: 'DB_NOT_FOUND',
      field: 'dispatch.entity',
      rule: 'configured-entity',
      tenant: 'acme',
      entity: 'supplier',
      requestId: null,
    });
    expect(items[1]).toMatchObject({
      code: 'DB_FORBIDDEN',
      field: 'dispatch.operation',
      rule: 'operation',
      requestId: 'req-auditor-1',
      retries: { state: 'open', attempts: 0 },
    });
    expect(items[0]).toMatchObject({ code: 'DB_VALIDATION', field: 'payload.iban', rule: 'encrypted', key: 'm-plain' });
    ids.permission = items[1]?.deltaId ?? '';
    ids.encryption = items[0]?.deltaId ?? '';
    expect((await list(['--stage', 'permission'])).items.map((i) => i.deltaId)).toEqual([ids.permission]);
    expect((await list(['--code', 'DB_NOT_FOUND', '--entity', 'supplier'])).items.map((i) => i.deltaId)).toEqual([ids.entity]);
    expect((await list(['--tenant', 'other'])).items).toEqual([]);

    const table = await runCli(cli, ['rejections', 'list']);
    expect(table.split('\n')[0]).toMatch(/^WHEN\s+STAGE\s+CODE\s+FIELD\s+RULE\s+DELTA ID\s+REQUEST-ID\s+RECORD\s+RETRIES$/);
    expect(table).toContain('req-auditor-1');
  });

  test('show: the original envelope; the refused plaintext is withheld, never printed', async () => {
    const permission = JSON.parse(await runCli(cli, ['rejections', 'show', ids.permission])) as RejectionDetail;
    expect(permission.delta).toMatchObject({
      id: ids.permission,
      actor: { user: 'carol', roles: ['auditor'] },
      payload: { merchantId: 'm-audit', name: 'Audited' },
      withheld: [],
      retryOf: null,
    });
    const shown = await runCli(cli, ['rejections', 'show', ids.encryption]);
    expect(shown).not.toContain(PLAINTEXT_IBAN);
    expect((JSON.parse(shown) as RejectionDetail).delta).toMatchObject({
      payload: { merchantId: 'm-plain', name: 'Plain' },
      withheld: [{ field: 'iban', reason: 'plaintext-sensitive' }],
    });
  });

  test('over HTTP: admin of the tenant only; the payload as the caller may read it', async () => {
    const listed = await adminGet('/admin/rejections?since=10m');
    expect(listed.status).toBe(200);
    expect((listed.body.items as RejectionSummary[]).map((i) => i.deltaId)).toEqual([ids.encryption, ids.permission, ids.entity]);
    expect((await adminGet('/admin/rejections', await t.token(['admin'], { tenant: 'globex' }))).body).toEqual({ items: [], total: 0 });
    expect(await adminGet('/admin/rejections', await t.token(['writer']))).toMatchObject({
      status: 403,
      body: { code: 'DB_FORBIDDEN', rule: 'role', stage: 'auth' },
    });
    expect(await adminGet('/admin/rejections?since=yesterday')).toMatchObject({ status: 400, body: { field: 'since', rule: 'time', stage: 'rejections' } });

    const unknownEntity = await adminGet(`/admin/rejections/${ids.entity}`);
    expect(unknownEntity.body.delta).toMatchObject({ payload: null, payloadWithheld: 'acme/supplier is not configured, so no role may read its fields' });
    const plaintext = await adminGet(`/admin/rejections/${ids.encryption}`);
    expect(JSON.stringify(plaintext.body)).not.toContain(PLAINTEXT_IBAN);
    expect(plaintext.body.delta).toMatchObject({
      payload: { merchantId: 'm-plain', name: 'Plain' },
      withheld: [{ field: 'iban', reason: 'plaintext-sensitive' }],
    });
    expect((await adminGet(`/admin/rejections/${ids.encryption}`, await t.token(['admin'], { tenant: 'globex' }))).status).toBe(404);
  });

  test('the rejections metric counts them by stage and code', async () => {
    const scrape = async () =>
      parseExposition(
        await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${await t.token(['operator'], { tenant: 'ops' })}` } })).text(),
      );
    const samples = await eventually(scrape, (s) => valueOf(s, METRIC_NAMES.rejections, { stage: 'encryption', code: 'DB_VALIDATION' }) === 1);
    expect(valueOf(samples, METRIC_NAMES.rejections, { stage: 'permission', code: 'DB_FORBIDDEN' })).toBe(1);
    expect(valueOf(samples, METRIC_NAMES.rejections, { stage: 'entity-config', code: 'DB_NOT_FOUND' })).toBe(1);
  });

  test('fix two causes, retry with the CLI: two accepted, the third refused again; a second retry sends nothing twice', async () => {
    writeFileSync(
      path.join(entitiesDir, 'acme', 'supplier.yaml'),
      [
        'tenant: acme',
        'entity: supplier',
        'version: 1',
        'key: [supplierId]',
        'fields:',
        '  supplierId: { type: string, required: true }',
        '  name: { type: string, required: true }',
        'roles:',
        "  writer: { operations: [create, update, delete], write: '*', read: '*' }",
        '',
      ].join('\n'),
    );
    const merchant = path.join(entitiesDir, 'acme', 'merchant_account.yaml');
    writeFileSync(merchant, `${readFileSync(merchant, 'utf8')}  auditor: { operations: [create], write: '*', read: '*' }\n`);
    // The service checks a configuration file at most once a second (file-source.ts): let it see both changes.
    await new Promise((resolve) => setTimeout(resolve, 1200));

    const dryRun = JSON.parse(await runCli(cli, ['rejections', 'retry', '--since', '10m', '--dry-run', '--json'])) as Retried;
    expect(dryRun.sent).toEqual([]);
    expect(dryRun.items.filter((i) => i.action === 'would-send')).toHaveLength(3);

    // As an operator runs it: its own process, beside the running service.
    const run = await spawnCli(['rejections', 'retry', '--since', '10m', '--json'], cliEnv);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const first = JSON.parse(run.stdout) as Retried;
    const retryOf = (id: string) => retryIdOf('acme', id);
    expect(first.sent.map((d) => d.deltaId).sort()).toEqual([ids.entity, ids.permission, ids.encryption].map(retryOf).sort());
    expect(first.verdicts[retryOf(ids.entity)]).toMatchObject({ status: 'accepted', version: 1 });
    expect(first.verdicts[retryOf(ids.permission)]).toMatchObject({ status: 'accepted', version: 1 });
    expect(first.verdicts[retryOf(ids.encryption)]).toMatchObject({ status: 'refused', stage: 'encryption', field: 'payload.iban', rule: 'encrypted' });

    // Each outcome is visible with GET /deltas/:id ...
    expect((await adminGet(`/deltas/${retryOf(ids.permission)}`)).body).toMatchObject({ status: 'accepted', version: 1 });
    expect((await adminGet(`/deltas/${retryOf(ids.encryption)}`)).body).toMatchObject({ status: 'refused', stage: 'encryption' });
    // ... and in the list: the refused retry names the delta it retried.
    const after = await eventually(
      () => list(['--since', '10m']),
      (l) => l.items.length === 4,
    );
    expect(after.items[0]).toMatchObject({ deltaId: retryOf(ids.encryption), stage: 'encryption', retryOf: ids.encryption });
    expect(byStage(after.items, 'permission')[0]?.retries).toEqual({ state: 'accepted', attempts: 1, acceptedBy: retryOf(ids.permission) });
    expect(byStage(after.items, 'entity-config')[0]?.retries).toEqual({ state: 'accepted', attempts: 1, acceptedBy: retryOf(ids.entity) });
    const shownRetry = JSON.parse(await runCli(cli, ['rejections', 'show', retryOf(ids.encryption)])) as RejectionDetail;
    expect(shownRetry.delta).toMatchObject({ retryOf: ids.encryption, actor: { user: 'alice', roles: ['writer'] } });
    expect(shownRetry.rejection.retryOf).toBe(ids.encryption);

    // The retried writes are persisted with the original actor and the retry's id.
    const permitted = await eventsOf('acme.merchant_account.events', 'm-audit');
    expect(permitted).toHaveLength(1);
    expect(permitted[0]).toMatchObject({
      deltaId: retryOf(ids.permission),
      actor: { user: 'carol', roles: ['auditor'] },
      payload: JSON.stringify({ merchantId: 'm-audit', name: 'Audited' }),
    });

    const second = JSON.parse(await runCli(cli, ['rejections', 'retry', '--since', '10m', '--json'])) as Retried;
    expect(
      second.items
        .filter((i) => i.action === 'skipped' && i.reason === 'accepted')
        .map((i) => [i.deltaId, i.acceptedBy])
        .sort(),
    ).toEqual(
      [
        [ids.entity, retryOf(ids.entity)],
        [ids.permission, retryOf(ids.permission)],
      ].sort(),
    );
    // The plaintext one and its refused retry are one chain: one new attempt, from the newest refused one.
    expect(second.sent).toEqual([{ tenant: 'acme', deltaId: retryOf(retryOf(ids.encryption)) }]);
    expect(second.verdicts[retryOf(retryOf(ids.encryption))]).toMatchObject({ status: 'refused', stage: 'encryption' });
    const byId = JSON.parse(await runCli(cli, ['rejections', 'retry', ids.permission, ids.entity, '--json'])) as Retried;
    expect(byId.sent).toEqual([]);
    expect(byId.items.map((i) => i.action)).toEqual(['skipped', 'skipped']);

    expect(await eventsOf('acme.merchant_account.events', 'm-audit')).toHaveLength(1);
    expect(await eventsOf('acme.supplier.events', 's-1')).toHaveLength(1);
    expect(await eventsOf('acme.merchant_account.events', 'm-plain')).toHaveLength(0);
  }, 120_000);
});
