import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runningKafkaCredentials, runningRegistryCredentials } from '../../src/embedded/engine-credentials';
import { loadSchemas } from '../../src/log';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { post, startTestService, type TestService } from '../support/service';
import { eventually, readTopic } from '../support/topics';

const schemas = loadSchemas();

/**
 * Two instances in datacenters dc1 and dc2 on one broker and one database: each local action topic holds
 * exactly the messages that originated in its datacenter, the global topic all of them.
 */
describe('two datacenters on one broker', () => {
  let db: FreshDatabase;
  let dc1: TestService;
  let dc2: TestService;

  beforeAll(async () => {
    db = await createFreshDatabase();
    dc1 = await startTestService({ database: db, env: { DELTABROKER_DATACENTER: 'dc1' } });
    // A second instance of the same service: dc1's master key (deltas it seals verify on either instance) and the
    // service identity on dc1's broker and registry.
    const kafka = runningKafkaCredentials(dc1.config.dataDir)?.service;
    const registry = runningRegistryCredentials(dc1.config.dataDir)?.service;
    dc2 = await startTestService({
      database: db,
      env: {
        DELTABROKER_DATACENTER: 'dc2',
        DELTABROKER_MASTER_KEY: readFileSync(path.join(dc1.config.dataDir, 'master.key'), 'utf8').trim(),
        DELTABROKER_KAFKA_BROKERS: dc1.service.brokers.join(','),
        DELTABROKER_KAFKA_SASL_USERNAME: kafka?.username ?? '',
        DELTABROKER_KAFKA_SASL_PASSWORD: kafka?.password ?? '',
        DELTABROKER_KAFKA_SASL_MECHANISM: 'scram-sha-256',
        DELTABROKER_SCHEMA_REGISTRY_URL: dc1.service.registryUrl,
        DELTABROKER_SCHEMA_REGISTRY_BASIC_AUTH: `${registry?.username}:${registry?.password}`,
      },
    });
  });
  afterAll(async () => {
    await dc2?.stop();
    await dc1?.stop();
    await db.drop();
  });

  test('local topics hold their own datacenter’s messages; the global topic holds all', async () => {
    const create = async (t: TestService, key: string) => {
      const token = await t.token(['admin']);
      const res = await post(
        `${t.url}/`,
        { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: key, name: key } },
        { authorization: `Bearer ${token}` },
      );
      expect(res.status).toBe(201);
      return res.body.eventId as string;
    };
    const fromDc1 = await Promise.all(Array.from({ length: 8 }, (_, i) => create(dc1, `dc1-${i}`)));
    const fromDc2 = await Promise.all(Array.from({ length: 8 }, (_, i) => create(dc2, `dc2-${i}`)));

    const log = dc1.service.log;
    const global = await eventually(
      () => readTopic(log, 'acme.merchant_account.actions.global', schemas.ActionEvent),
      (r) => r.length >= 16,
    );
    const local1 = await eventually(
      () => readTopic(log, 'acme.merchant_account.actions.dc1', schemas.ActionEvent),
      (r) => r.length >= 8,
    );
    const local2 = await eventually(
      () => readTopic(log, 'acme.merchant_account.actions.dc2', schemas.ActionEvent),
      (r) => r.length >= 8,
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const ids = async (topic: string) => (await readTopic(log, topic, schemas.ActionEvent)).map((a) => a.value);
    const g = await ids('acme.merchant_account.actions.global');
    const l1 = await ids('acme.merchant_account.actions.dc1');
    const l2 = await ids('acme.merchant_account.actions.dc2');
    expect(new Set(g.map((a) => a.eventId))).toEqual(new Set([...fromDc1, ...fromDc2]));
    expect(g).toHaveLength(16);
    expect(l1.map((a) => a.eventId).sort()).toEqual([...fromDc1].sort());
    expect(l2.map((a) => a.eventId).sort()).toEqual([...fromDc2].sort());
    expect(l1.every((a) => a.datacenter === 'dc1')).toBe(true);
    expect(l2.every((a) => a.datacenter === 'dc2')).toBe(true);
    expect(global.length + local1.length + local2.length).toBeGreaterThanOrEqual(32);
  });
});
