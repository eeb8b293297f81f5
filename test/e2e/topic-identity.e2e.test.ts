/**
 * Topic identity through the whole service: its broker loses a persistence topic's files between two runs (a
 * disk restored from an older backup, a directory removed by hand), so the topic comes back empty under the
 * projectors' checkpoints. The restarted service must say so (/ready 503 naming DB_TOPIC_RECREATED, the
 * stopped-partitions metric, an error log line) and keep the new records out of the table rather than pass
 * them off as applied, while other entities' topics go on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { partitionForKey } from '../../src/log/in-process';
import { testEntitiesDir } from '../support/entities';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { post, startTestService, type TestService } from '../support/service';
import { eventually } from '../support/topics';

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

    rmSync(path.join(dataDir, 'kafka', 'topics', 'acme.merchant_account.events'), { recursive: true, force: true });
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
