import { runningKafkaCredentials } from '../../src/embedded/engine-credentials';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { loadSchemas, type DeltaEnvelope } from '../../src/log';
import { openKafkaWriteLog } from '../../src/log/kafka';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { eventually, readTopic } from '../support/topics';

const schemas = loadSchemas();
const KEYS = 50;
const ROUNDS = 32; // one create and 31 updates per key
const TOTAL = KEYS * ROUNDS;

/** SIGKILL the service mid-stream and restart it: every delta is persisted exactly once, in per-key order. */
describe('kill and restart mid-stream', () => {
  let db: FreshDatabase;
  let dataDir: string;
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    db = await createFreshDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-kill-'));
    env = {
      DELTABROKER_DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      DELTABROKER_HTTP_PORT: String(await freePort()),
      DELTABROKER_KAFKA_PORT: String(await freePort()),
      DELTABROKER_REGISTRY_PORT: String(await freePort()),
    };
  });
  afterAll(async () => {
    await service?.stop();
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const deltas: DeltaEnvelope[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < KEYS; k++) {
      deltas.push({
        id: randomUUID(),
        requestId: null,
        tenant: 'acme',
        entity: 'merchant_account',
        operation: round === 0 ? 'create' : 'update',
        key: `kr-${k}`,
        payload: JSON.stringify({ merchantId: `kr-${k}`, name: `round ${round}`, mcc: round }),
        actor: { user: 'loader', roles: ['writer'] },
        origin: { datacenter: 'dc1' },
        occurredAt: Date.now(),
        expectedVersion: null,
        retryOf: null,
      });
    }
  }

  /**
   * Publishes the batch in sends of 100; answers the deltas from the first send that failed on (the service was
   * killed under it: those may or may not be on the log, and are sent again after the restart).
   */
  async function produce(batch: DeltaEnvelope[]): Promise<DeltaEnvelope[]> {
    const brokers = [`127.0.0.1:${env.DELTABROKER_KAFKA_PORT}`];
    const kafka = new Kafka({ clientId: 'kill-test', brokers, logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const registry = new SchemaRegistry({ host: `http://127.0.0.1:${env.DELTABROKER_REGISTRY_PORT}` });
    const { id } = await registry.register({ type: SchemaType.AVRO, schema: JSON.stringify(schemas.DeltaEnvelope.definition) }, { subject: 'deltas-value' });
    // The producer proves its actor with a token from the service's dev issuer (stage 5).
    const issuer = await loadDevIssuer(dataDir, 'deltabroker-dev', 'deltabroker');
    const headers = { authorization: `Bearer ${await issuer.mint({ sub: 'loader', tenant: 'acme', roles: ['writer'], ttlSeconds: 3600 })}` };
    for (let i = 0; i < batch.length; i += 100) {
      const messages = await Promise.all(
        batch.slice(i, i + 100).map(async (d) => ({ key: `acme/merchant_account/${d.key}`, value: await registry.encode(id, d), headers })),
      );
      try {
        await producer.send({ topic: 'deltas', acks: -1, messages });
      } catch {
        await producer.disconnect().catch(() => undefined);
        return batch.slice(i);
      }
    }
    await producer.disconnect();
    return [];
  }

  /** Polls every 5 ms on one connection: the kill must follow the first verdicts closely. */
  async function decidedAtLeast(n: number): Promise<void> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      const deadline = Date.now() + 60_000;
      while (Number((await client.query<{ n: string }>('select count(*) as n from delta_outcomes')).rows[0]?.n) < n) {
        if (Date.now() > deadline) throw new Error(`fewer than ${n} deltas decided within 60 s`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      await client.end();
    }
  }

  async function decided(): Promise<number> {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>('select count(*) as n from delta_outcomes')).rows[0]?.n);
    } finally {
      await client.end();
    }
  }

  test('every delta is persisted once, versions in per-key order', async () => {
    service = await startServiceProcess(env);
    // The kill lands while deltas are still being published and decided (the pipeline keeps pace with the
    // producer, so waiting for the publishing to finish first would leave nothing in flight).
    const producing = produce(deltas.slice(0, TOTAL / 2));
    await decidedAtLeast(TOTAL / 16);
    await service.kill();
    const unsent = await producing;
    const atKill = await decided();
    // The kill must land mid-stream for the test to mean anything.
    expect(atKill).toBeLessThan(TOTAL / 2);
    console.log(`killed with ${atKill} of ${TOTAL / 2} deltas decided, ${unsent.length} to send again`);

    service = await startServiceProcess(env);
    // Deltas whose send failed under the kill go again: any already on the log are answered, not applied twice.
    await produce([...unsent, ...deltas.slice(TOTAL / 2)]);
    await eventually(decided, (n) => n >= TOTAL, 90_000);

    // The service's identity: the reader's temporary group is a `deltabroker-*` group, the service's own.
    const identity = runningKafkaCredentials(dataDir)?.service;
    const sasl = identity && { mechanism: 'scram-sha-256' as const, username: identity.username, password: identity.password };
    const log = await openKafkaWriteLog({
      brokers: [`127.0.0.1:${env.DELTABROKER_KAFKA_PORT}`],
      registryUrl: `http://127.0.0.1:${env.DELTABROKER_REGISTRY_PORT}`,
      ...(sasl && { sasl }),
    });
    try {
      const events = await readTopic(log, 'acme.merchant_account.events', schemas.EntityEvent);
      const byDelta = new Map<string, number>();
      for (const e of events) byDelta.set(e.value.deltaId, (byDelta.get(e.value.deltaId) ?? 0) + 1);
      expect(byDelta.size).toBe(TOTAL);
      expect([...byDelta.values()].every((n) => n === 1)).toBe(true);

      const ordered = [...events].sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
      const versions = new Map<string, number[]>();
      for (const e of ordered) versions.set(e.value.key, [...(versions.get(e.value.key) ?? []), e.value.version]);
      for (let k = 0; k < KEYS; k++) expect(versions.get(`kr-${k}`)).toEqual(Array.from({ length: ROUNDS }, (_, i) => i + 1));
      const names = ordered.filter((e) => e.value.key === 'kr-0').map((e) => JSON.parse(e.value.payload ?? '{}').name);
      expect(names).toEqual(Array.from({ length: ROUNDS }, (_, i) => `round ${i}`));
    } finally {
      await log.close();
    }
  }, 240_000);
});
