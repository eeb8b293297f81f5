/**
 * Topic identity through the whole service: its broker loses a persistence topic's files between two runs (a
 * disk restored from an older backup, a directory removed by hand), so the topic comes back empty under the
 * projectors' checkpoints. The restarted service must say so (/ready 503 naming DB_TOPIC_RECREATED, the
 * stopped-partitions metric, an error log line) and keep the new records out of the table rather than pass
 * them off as applied, while other entities' topics go on.
 *
 * Then recovery, with `deltabroker recover` while the service runs: the partitions run again, the table equals a
 * replay of the new topic, and no event is applied or emitted twice. On the embedded broker the topic loses its
 * files between two runs (the broker refuses to delete a persistence topic); in the e2e-real project, on Kafka 4,
 * it is deleted and created again under the running service.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { partitionForKey } from '../../src/log/in-process';
import { loadSchemas, type ActionEvent } from '../../src/log';
import { runCli } from '../support/cli-process';
import { loseTopic, realEngines, recreateKafkaTopic } from '../support/engines';
import { emptyKafka } from '../support/kafka-reset';
import { testEntitiesDir } from '../support/entities';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { post, startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';

describe('a persistence topic that lost its files between two runs', () => {
  const entitiesDir = testEntitiesDir();
  let dataDir = '';
  let database: FreshDatabase;
  let t: TestService | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'topic-identity-e2e-'));
    database = await createFreshDatabase();
  });
  afterAll(async () => {
    await t?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (): Promise<TestService> => startTestService({ database, env: { DELTABROKER_DATA_DIR: dataDir, DELTABROKER_ENTITIES_DIR: entitiesDir } });
  const create = async (service: TestService, entity: string, payload: Record<string, unknown>) => {
    const token = await service.token(['admin', 'writer']);
    return post(`${service.url}/`, { dispatch: { entity, operation: 'create' }, payload }, { authorization: `Bearer ${token}` });
  };
  const keys = async (service: TestService, table: string, key: string): Promise<string[]> =>
    (await service.service.sql.query<{ k: string }>(`select "${key}" as k from tenant_acme.${table} order by 1`)).rows.map((r) => r.k);

  test('the restarted service stops the lost topic, says so on /ready and /metrics, and keeps projecting the others', async () => {
    const merchants = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6'];
    // Every partition of the topic holds an old merchant, so every checkpoint lies beyond the emptied partitions.
    expect(new Set(merchants.map((id) => partitionForKey(`acme/merchant_account/${id}`, 3))).size).toBe(3);
    t = await start();
    for (const id of merchants) expect((await create(t, 'merchant_account', { merchantId: id, name: `Shop ${id}` })).status).toBe(201);
    await eventually(
      () => keys(t as TestService, 'merchant_account', 'merchantId'),
      (k) => k.length === 6,
    );
    await t.stop();
    t = undefined;

    await loseTopic(dataDir, 'acme.merchant_account.events');
    t = await start();
    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(503);
    const checks = ((await ready.json()) as { checks: { name: string; status: string; reason?: string }[] }).checks;
    expect(checks.find((c) => c.name === 'topics')).toMatchObject({
      status: 'down',
      reason: expect.stringMatching(/DB_TOPIC_RECREATED: .*acme\.merchant_account\.events/),
    });
    const metrics = await (await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${await t.token(['operator'])}` } })).text();
    expect(metrics).toMatch(
      /deltabroker_partitions_stopped_total\{consumer="deltabroker-projector-postgres",topic="acme\.merchant_account\.events",partition="\d"\} 1/,
    );
    expect(t.logLines.some((l) => l.includes('DB_TOPIC_RECREATED') && l.includes('"level":50'))).toBe(true);

    // A new merchant lands on the new topic at an offset below the checkpoint: it is not applied, nor passed over.
    expect((await create(t, 'merchant_account', { merchantId: 'm-new', name: 'After the loss' })).status).toBe(201);
    // Another entity's topic keeps working.
    expect((await create(t, 'strict_account', { accountId: 's-1', name: 'Strict' })).status).toBe(201);
    await eventually(
      () => keys(t as TestService, 'strict_account', 'accountId'),
      (k) => k.includes('s-1'),
    );
    expect(await keys(t, 'merchant_account', 'merchantId')).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6']);
  });
});

describe('a recreated persistence topic, recovered with `deltabroker recover` while the service runs', () => {
  const entitiesDir = testEntitiesDir();
  const topic = 'acme.merchant_account.events';
  const onKafka = process.env.TEST_SERVICE_ENGINES === 'real';
  let dataDir = '';
  let database: FreshDatabase;
  let t: TestService | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'topic-recovery-e2e-'));
    database = await createFreshDatabase();
    // The cluster outlives the describe before this one, whose records its topic still holds.
    if (onKafka) await emptyKafka(realEngines().kafka?.brokers ?? []);
  }, 60_000);
  afterAll(async () => {
    await t?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (): Promise<TestService> => startTestService({ database, env: { DELTABROKER_DATA_DIR: dataDir, DELTABROKER_ENTITIES_DIR: entitiesDir } });
  const cli = (args: string[]) =>
    runCli(args, { DELTABROKER_DATA_DIR: dataDir, DELTABROKER_ENTITIES_DIR: entitiesDir, DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
  const write = async (service: TestService, operation: 'create' | 'update', payload: Record<string, unknown>) => {
    const token = await service.token(['admin', 'writer']);
    const answer = await post(`${service.url}/`, { dispatch: { entity: 'merchant_account', operation }, payload }, { authorization: `Bearer ${token}` });
    expect(answer.status).toBe(operation === 'create' ? 201 : 200);
  };
  const rows = async (service: TestService) =>
    (
      await service.service.sql.query<{ id: string; name: string; version: number }>(
        `select "merchantId" as id, name, _version::int as version from tenant_acme.merchant_account order by 1`,
      )
    ).rows;
  const ready = async (service: TestService) => {
    const answer = await fetch(`${service.url}/ready`);
    return { status: answer.status, body: await answer.text() };
  };

  test('the stopped partitions run again, the table equals a replay of the new topic, and no event is applied or emitted twice', async () => {
    t = await start();
    const old = ['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6']; // on every partition of the topic
    expect(new Set(old.map((id) => partitionForKey(`acme/merchant_account/${id}`, 3))).size).toBe(3);
    for (const id of old) await write(t, 'create', { merchantId: id, name: `Shop ${id}` });
    await eventually(
      () => rows(t as TestService),
      (r) => r.length === 6,
    );

    // Without a running service there is nothing to resume: recover says so.
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'no-service-'));
    const noService = await runCli(['recover', '--entity', 'merchant_account'], { DELTABROKER_DATA_DIR: elsewhere, LOG_LEVEL: 'warn' });
    rmSync(elsewhere, { recursive: true, force: true });
    expect(noService.code).toBe(1);
    expect(noService.stdout + noService.stderr).toContain(`DB_DEPENDENCY_UNAVAILABLE: no service runs on the data directory ${elsewhere}`);

    // Nothing is stopped yet: recover says it has nothing to do, and why.
    const early = await cli(['recover', '--entity', 'merchant_account']);
    expect(early.code).toBe(1);
    expect(early.stdout + early.stderr).toContain(`DB_CONFLICT: nothing of ${topic} is stopped in this service`);

    if (onKafka) {
      await recreateKafkaTopic(topic);
    } else {
      await t.stop();
      t = undefined;
      await loseTopic(dataDir, topic);
      t = await start();
    }
    const service = t;
    await write(service, 'create', { merchantId: 'm-new', name: 'After the loss' });
    // Each consumer finds the loss on its own (on Kafka only once its position has stayed beyond the end for the
    // log's endSettleMs): recover once both projectors have stopped, as an operator reading /ready would.
    const stopped = await eventually(
      () => ready(service),
      (r) =>
        r.status === 503 &&
        ['deltabroker-projector-postgres', 'deltabroker-projector-search'].every((consumer) => r.body.includes(`${consumer} stopped ${topic}/`)),
      60_000,
    );
    expect(stopped.body).toContain('DB_TOPIC_RECREATED');
    expect((await rows(service)).map((r) => r.id)).toEqual(old); // m-new is neither applied nor passed over

    // Only an operator of the tenant may recover.
    const writerOnly = await post(
      `${service.url}/admin/recover`,
      { entity: 'merchant_account' },
      { authorization: `Bearer ${await service.token(['writer'])}` },
    );
    expect(writerOnly).toMatchObject({ status: 403, body: { code: 'DB_FORBIDDEN' } });

    const recovered = await cli(['recover', '--entity', 'merchant_account', '--json']);
    expect(recovered.stderr).toBe('');
    expect(recovered.code).toBe(0);
    const report = JSON.parse(recovered.stdout) as { topic: string; resumed: { consumer: string }[]; rebuild: { events: number } };
    expect(report).toMatchObject({ topic, rebuild: { events: 1 } });
    expect(report.resumed.map((p) => p.consumer)).toEqual(expect.arrayContaining(['deltabroker-projector-postgres', 'deltabroker-projector-search']));
    expect(await ready(service)).toMatchObject({ status: 200 });
    // The pipeline's state checkpoints counted the old topic: moved back, the next start's catch-up reads the new one.
    const stateCheckpoints = await service.service.sql.query<{ next: string }>(
      `select next_offset::text as next from state_checkpoints where topic = $1 order by partition`,
      [topic],
    );
    for (const { next } of stateCheckpoints.rows) expect(BigInt(next)).toBeLessThanOrEqual(1n);

    // The table is what the new topic holds; the partitions project what comes next.
    expect((await rows(service)).map((r) => r.id)).toEqual(['m-new']);
    await write(service, 'update', { merchantId: 'm-new', name: 'Renamed' });
    await write(service, 'create', { merchantId: 'm-7', name: 'After the recovery' });
    const after = await eventually(
      () => rows(service),
      (r) => r.length === 2 && r[1]?.name === 'Renamed',
    );
    expect(after.map(({ id, version }) => ({ id, version }))).toEqual([
      { id: 'm-7', version: 1 },
      { id: 'm-new', version: 2 },
    ]);
    const verify = await cli(['verify', '--entity', 'merchant_account']);
    expect(verify.stdout).toContain('equal');
    expect(verify.code).toBe(0);

    // Each event reached the global action topic once: the old ones before the loss, the new ones after the recovery.
    const schemas = loadSchemas();
    const actions = await eventually(
      () => readTopic<ActionEvent>(service.service.log, 'acme.merchant_account.actions.global', schemas.ActionEvent),
      (a) => a.length >= 9,
    );
    const eventIds = actions.map((a) => a.value.eventId);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(actions.map((a) => `${a.value.key}@${a.value.version}`).sort()).toEqual([...old.map((id) => `${id}@1`), 'm-7@1', 'm-new@1', 'm-new@2'].sort());

    // A second recovery has nothing left to do.
    const again = await cli(['recover', '--entity', 'merchant_account']);
    expect(again.code).toBe(1);
    expect(again.stdout + again.stderr).toContain('DB_CONFLICT: nothing of');
  }, 180_000);
});
