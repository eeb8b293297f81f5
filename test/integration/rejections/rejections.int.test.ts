import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { retryIdOf, type RejectionDetail, type RejectionSummary } from '../../../src/broker/rejections';
import { loadConfig, type Config } from '../../../src/config';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
import { loadSchemas } from '../../../src/log';
import { testEntitiesDir } from '../../support/entities';
import { post, startTestService, type TestService } from '../../support/service';
import { eventually, readTopic } from '../../support/topics';
import { runCli } from '../cli/run-cli';

const schemas = loadSchemas();
const EVENTS = 'acme.merchant_account.events';

/** Produces each line of `lines` as one record with kcat, as a foreign producer would. */
function kcatProduce(brokers: string, topic: string, lines: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', ['-P', '-b', brokers, '-t', topic, '-k', 'noise'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`kcat exited ${code}: ${err}`))));
    child.stdin.end(`${lines.join('\n')}\n`);
  });
}

/** The rejections service beyond the scenario: both verdict sources, undecodable records, the HTTP retry. */
describe('refused deltas: verdict sources, undecodable records, retries over HTTP', () => {
  let t: TestService;
  let entitiesDir: string;
  let withStore: Config;
  let withoutStore: Config;
  let admin: string;
  let refusedEarlier: string;

  beforeAll(async () => {
    entitiesDir = testEntitiesDir();
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: entitiesDir } });
    const env = {
      DELTABROKER_DATA_DIR: t.config.dataDir,
      DELTABROKER_KAFKA_PORT: new URL(`kafka://${t.service.brokers[0] ?? ''}`).port,
      DELTABROKER_REGISTRY_PORT: new URL(t.service.registryUrl).port,
      DELTABROKER_ENTITIES_DIR: entitiesDir,
    };
    withoutStore = loadConfig(env);
    withStore = loadConfig({ ...env, DATABASE_URL: t.config.databaseUrl ?? '' });
    admin = await t.token(['admin']);
  });
  afterAll(() => t.stop());

  /** A create by a role the entity does not grant (yet); answers the refused delta's id. */
  const refuseCreate = async (merchantId: string, role = 'auditor'): Promise<string> => {
    const token = await t.token([role]);
    const refused = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId, name: 'Audited' } },
      { authorization: `Bearer ${token}` },
    );
    expect(refused.body).toMatchObject({ status: 403, stage: 'permission' });
    const listed = await eventually(
      async () => JSON.parse(await runCli(withStore, ['rejections', 'list', '--json', '--stage', 'permission'])) as { items: RejectionSummary[] },
      (l) => l.items.some((i) => i.key === merchantId),
    );
    return listed.items.find((i) => i.key === merchantId)?.deltaId as string;
  };
  const grant = async (role: string): Promise<void> => {
    const merchant = path.join(entitiesDir, 'acme', 'merchant_account.yaml');
    writeFileSync(merchant, `${readFileSync(merchant, 'utf8')}  ${role}: { operations: [create], write: '*', read: '*' }\n`);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the service re-reads an entity file at most once a second
  };
  const retryOverHttp = (body: unknown, headers: Record<string, string> = {}) =>
    post(`${t.url}/admin/rejections/retry`, body, { authorization: `Bearer ${admin}`, ...headers });

  test('the CLI answers the same from the store (DATABASE_URL) as from the outcomes topic', async () => {
    refusedEarlier = await refuseCreate('m-both');
    const fromStore = JSON.parse(await runCli(withStore, ['rejections', 'list', '--json'])) as { items: RejectionSummary[] };
    const fromTopic = JSON.parse(await runCli(withoutStore, ['rejections', 'list', '--json'])) as { items: RejectionSummary[] };
    expect(fromTopic).toEqual(fromStore);
    expect(fromStore.items[0]).toMatchObject({ field: 'dispatch.operation', rule: 'operation' });
  });

  test('undecodable records are listed and shown with their bytes, and cannot be retried', async () => {
    await kcatProduce(t.service.brokers[0] ?? '', 'deltas', ['not avro at all']);
    const decode = await eventually(
      async () => JSON.parse(await runCli(withStore, ['rejections', 'list', '--json', '--stage', 'decode'])) as { items: RejectionSummary[] },
      (l) => l.items.length === 1,
    );
    const [item] = decode.items;
    expect(item).toMatchObject({ deltaId: null, tenant: null, code: 'DECODE_MAGIC_BYTE', retries: { state: 'not-retriable' } });
    const shown = JSON.parse(await runCli(withStore, ['rejections', 'show', item?.rejectionId ?? ''])) as RejectionDetail;
    expect(Buffer.from(shown.raw ?? '', 'base64').toString()).toBe('not avro at all');
    expect(shown.delta).toBeNull();
    const retried = JSON.parse(await runCli(withStore, ['rejections', 'retry', item?.rejectionId ?? '', '--json'])) as {
      items: { action: string }[];
      sent: string[];
    };
    expect(retried).toMatchObject({ sent: [], items: [{ action: 'not-retriable' }] });
    // A tenant's operator never sees records that name no tenant.
    const overHttp = await fetch(`${t.url}/admin/rejections?stage=decode`, { headers: { authorization: `Bearer ${admin}` } });
    expect(await overHttp.json()).toEqual({ items: [], total: 0 });
  });

  test('POST /admin/rejections/retry: the same retry sent twice at once is applied once', async () => {
    const deltaId = await refuseCreate('m-twice');
    await grant('auditor');

    const async = { prefer: 'respond-async' };
    const [a, b] = await Promise.all([retryOverHttp({ deltaIds: [deltaId] }, async), retryOverHttp({ deltaIds: [deltaId] }, async)]);
    const retryId = retryIdOf('acme', deltaId);
    for (const answer of [a, b]) {
      expect([200, 202]).toContain(answer.status);
      expect(answer.body.items).toEqual([
        answer.status === 202 ? { deltaId, action: 'sent', retry: { deltaId: retryId, retryOf: deltaId } } : expect.objectContaining({ deltaId }),
      ]);
    }
    await eventually(
      async () => (await fetch(`${t.url}/deltas/${retryId}`, { headers: { authorization: `Bearer ${admin}` } })).json(),
      (o) => (o as { status: string }).status === 'accepted',
    );
    const events = (await readTopic(t.service.log, EVENTS, schemas.EntityEvent)).filter((e) => e.value.key === 'm-twice');
    expect(events.map((e) => e.value.deltaId)).toEqual([retryId]);

    // Without Prefer it waits for the verdict; here there is nothing left to send.
    const again = await retryOverHttp({ deltaIds: [deltaId, 'never-refused'] });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      sent: [],
      verdicts: {},
      items: [
        { deltaId: 'never-refused', action: 'not-found' },
        { deltaId, action: 'skipped', reason: 'accepted', acceptedBy: retryId },
      ],
    });
  });

  test("POST /admin/rejections/retry: waits for verdicts; refuses a bad selection; stays in the caller's tenant", async () => {
    const deltaId = await refuseCreate('m-wait', 'inspector');
    await grant('inspector');
    const waited = await retryOverHttp({ since: '10m', stage: 'permission', code: 'DB_FORBIDDEN' });
    expect(waited.status).toBe(200);
    // m-both, refused in the first test for the auditor role granted since, matches the filter too.
    expect((waited.body.sent as { deltaId: string }[]).map((d) => d.deltaId).sort()).toEqual(
      [retryIdOf('acme', deltaId), retryIdOf('acme', refusedEarlier)].sort(),
    );
    expect((waited.body.verdicts as Record<string, unknown>)[retryIdOf('acme', deltaId)]).toMatchObject({ status: 'accepted', version: 1 });

    expect(await retryOverHttp({ deltaIds: [deltaId], since: '1h' })).toMatchObject({
      status: 400,
      body: { code: 'DB_VALIDATION', field: 'deltaIds', stage: 'rejections' },
    });
    expect(await retryOverHttp({})).toMatchObject({ status: 400, body: { field: 'deltaIds' } });
    expect(await retryOverHttp({ deltaIds: ['bad id!'] })).toMatchObject({ status: 400, body: { field: 'deltaIds.0', stage: 'rejections' } });
    const otherTenant = await post(
      `${t.url}/admin/rejections/retry`,
      { deltaIds: [deltaId] },
      { authorization: `Bearer ${await t.token(['admin'], { tenant: 'globex' })}` },
    );
    expect(otherTenant.body).toMatchObject({ sent: [], items: [{ deltaId, action: 'not-found' }] });
    expect((await post(`${t.url}/admin/rejections/retry`, { deltaIds: [deltaId] }, { authorization: `Bearer ${await t.token(['auditor'])}` })).status).toBe(
      403,
    );
  });

  test('the CLI says what is wrong: no selection, no registry, a broker no service ran on', async () => {
    await expect(runCli(withStore, ['rejections', 'retry'])).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'deltaIds', rule: 'selection' },
    });
    await expect(runCli(withStore, ['rejections', 'retry', 'd-1', '--since', '1h'])).rejects.toMatchObject({ code: 'DB_VALIDATION' });
    const noRegistry = loadConfig({ DELTABROKER_KAFKA_PORT: String(withoutStore.kafka.port), DELTABROKER_REGISTRY_PORT: '1' });
    await expect(runCli(noRegistry, ['rejections', 'list'])).rejects.toMatchObject({
      code: 'DB_DEPENDENCY_UNAVAILABLE',
      message: expect.stringContaining('no schema registry answers at http://127.0.0.1:1'),
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'rejections-empty-'));
    const empty = await startEmbeddedKafka({ dataDir: dir, port: 0 });
    try {
      const fresh = loadConfig({ DELTABROKER_KAFKA_BROKERS: empty.brokers.join(','), DELTABROKER_SCHEMA_REGISTRY_URL: t.service.registryUrl });
      await expect(runCli(fresh, ['rejections', 'list'])).rejects.toMatchObject({ code: 'DB_NOT_FOUND', details: { rule: 'topic-exists' } });
    } finally {
      await empty.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a retry never trusts roles a Kafka producer only claimed: it carries that producer's token again", async () => {
    const reader = await t.token(['reader'], { sub: 'kafka-user' });
    const delta = {
      id: `launder-${Date.now()}`,
      requestId: null,
      tenant: 'acme',
      entity: 'merchant_account',
      operation: 'create' as const,
      key: 'm-launder',
      payload: JSON.stringify({ merchantId: 'm-launder', name: 'Claimed' }),
      actor: { user: 'kafka-user', roles: ['admin'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    };
    await t.service.log.publish([
      { topic: 'deltas', key: 'acme/merchant_account/m-launder', value: delta, schema: schemas.DeltaEnvelope, headers: { authorization: `Bearer ${reader}` } },
    ]);
    await eventually(
      async () => (await (await fetch(`${t.url}/deltas/${delta.id}`, { headers: { authorization: `Bearer ${admin}` } })).json()) as { status?: string },
      (d) => d.status === 'refused',
    );
    const retried = await retryOverHttp({ deltaIds: [delta.id] });
    expect(retried.status).toBe(200);
    expect((retried.body.verdicts as Record<string, unknown>)[retryIdOf('acme', delta.id)]).toMatchObject({ status: 'refused', stage: 'permission' });
  });
});
