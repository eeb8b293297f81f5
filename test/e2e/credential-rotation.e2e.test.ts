/**
 * Rotating the embedded broker's and registry's passwords, as docs/security.md tells operators: stop the service,
 * write new passwords into `data/credentials/*.json` (or delete the files for fresh ones), start it again. The
 * old passwords are refused from then on, the new ones work, and the service's own identity follows the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { testEntitiesDir } from '../support/entities';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { post, startTestService, type TestService } from '../support/service';

interface Credentials {
  service: { username: string; password: string };
  client: { username: string; password: string };
}

describe('rotating the embedded engines’ credentials', () => {
  const entitiesDir = testEntitiesDir();
  let dataDir = '';
  let database: FreshDatabase;
  let t: TestService | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'credential-rotation-'));
    database = await createFreshDatabase();
  });
  afterAll(async () => {
    await t?.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = (): Promise<TestService> =>
    startTestService({ database, env: { DELTABROKER_DATA_DIR: dataDir, DELTABROKER_ENTITIES_DIR: entitiesDir, DELTABROKER_KAFKA_SASL_REQUIRED: 'true' } });
  const file = (engine: 'kafka' | 'registry'): string => path.join(dataDir, 'credentials', `${engine}.json`);
  const read = (engine: 'kafka' | 'registry'): Credentials => JSON.parse(readFileSync(file(engine), 'utf8')) as Credentials;
  const canList = async (service: TestService, password: string): Promise<boolean> => {
    const admin = new Kafka({
      brokers: service.service.brokers,
      sasl: { mechanism: 'scram-sha-256', username: 'client', password },
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
    }).admin();
    try {
      await admin.connect();
      await admin.listTopics();
      return true;
    } catch {
      return false;
    } finally {
      await admin.disconnect();
    }
  };
  const registryMutation = (service: TestService, password: string): Promise<number> =>
    fetch(`${service.service.registryUrl}/config/client-scratch-value`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`client:${password}`).toString('base64')}` },
      body: JSON.stringify({ compatibility: 'FULL' }),
    }).then((r) => r.status);

  test('new passwords written into the files take over at the next start; the old ones are refused', async () => {
    t = await start();
    const old = { kafka: read('kafka'), registry: read('registry') };
    expect(await canList(t, old.kafka.client.password)).toBe(true);
    expect(await registryMutation(t, old.registry.client.password)).toBe(200);
    await t.stop();

    const rotated = {
      kafka: {
        ...old.kafka,
        client: { username: 'client', password: 'rotated-kafka-client-1' },
        service: { username: 'deltabroker', password: 'rotated-kafka-service-1' },
      },
      registry: { ...old.registry, client: { username: 'client', password: 'rotated-registry-client-1' } },
    };
    writeFileSync(file('kafka'), JSON.stringify(rotated.kafka), { mode: 0o600 });
    writeFileSync(file('registry'), JSON.stringify(rotated.registry), { mode: 0o600 });
    t = await start();
    expect(await canList(t, old.kafka.client.password)).toBe(false);
    expect(await canList(t, 'rotated-kafka-client-1')).toBe(true);
    expect(await registryMutation(t, old.registry.client.password)).toBe(401);
    expect(await registryMutation(t, 'rotated-registry-client-1')).toBe(200);
    // The service itself runs on the rotated identity: a write goes through the pipeline and is ready.
    const token = await t.token(['admin']);
    const res = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'rot-1', name: 'Rotated' } },
      { authorization: `Bearer ${token}` },
    );
    expect(res.status).toBe(201);
    expect((await fetch(`${t.url}/ready`)).status).toBe(200);
  });
});
