/**
 * Issue 16's flood through the whole service: the service runs in its own process with a limit of 1024 open
 * files (`ulimit -n`: Node raises a soft limit to the hard one at start, so both are set), and child processes (whose own limits are raised) open several thousand idle connections to
 * its Kafka port from several loopback addresses. While they are open, /health, an HTTP write and read, and a
 * kafkajs producer connected before the flood keep answering, and the service holds fewer files than its limit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { loadSchemas, type DeltaEnvelope } from '../../src/log';
import { testEntitiesDir } from '../support/entities';
import { createFreshDatabase, type FreshDatabase } from '../support/postgres';
import { post } from '../support/service';
import { freePort, startServiceProcess, type ServiceProcess } from '../support/service-process';
import { eventually } from '../support/topics';

const FD_LIMIT = 1024;
/** Per flooding process; three of them, each from its own loopback addresses. */
const CONNECTIONS_PER_FLOODER = 1500;

interface FloodReport {
  attempted: number;
  connected: number;
  closedByServer: number;
  open: number;
  failed: number;
}

/** A child process with a raised limit that opens idle connections and reports once they settled. */
function flood(port: number, sources: string[]): { child: ChildProcess; report: Promise<FloodReport> } {
  const script = path.join(__dirname, 'clients/idle-connections.js');
  const child = spawn(
    '/bin/sh',
    ['-c', `ulimit -n 8192 && exec "$0" "$@"`, process.execPath, script, '127.0.0.1', String(port), String(CONNECTIONS_PER_FLOODER), sources.join(',')],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const report = new Promise<FloodReport>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => resolve(JSON.parse(line) as FloodReport));
    child.once('exit', (code) => reject(new Error(`flooder exited with ${code} before reporting`)));
  });
  return { child, report };
}

describe('idle connections beyond the service’s file-descriptor limit', () => {
  const schemas = loadSchemas();
  let db: FreshDatabase;
  let dataDir = '';
  let kafkaPort = 0;
  let service: ServiceProcess;
  let producer: Producer;
  let registry: SchemaRegistry;
  const flooders: ChildProcess[] = [];

  beforeAll(async () => {
    db = await createFreshDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-flood-'));
    kafkaPort = await freePort();
    const env = {
      DELTABROKER_DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      DELTABROKER_ENTITIES_DIR: testEntitiesDir(),
      DELTABROKER_HTTP_PORT: String(await freePort()),
      DELTABROKER_KAFKA_PORT: String(kafkaPort),
      DELTABROKER_REGISTRY_PORT: String(await freePort()),
    };
    service = await startServiceProcess(env, 90_000, { fdLimit: FD_LIMIT });
    producer = new Kafka({ clientId: 'before-the-flood', brokers: [`127.0.0.1:${kafkaPort}`], logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    registry = new SchemaRegistry({ host: `http://127.0.0.1:${env.DELTABROKER_REGISTRY_PORT}` });
  }, 120_000);
  afterAll(async () => {
    for (const f of flooders) f.kill('SIGKILL');
    await producer?.disconnect();
    await service?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('/health, an HTTP write and read, and an existing kafkajs producer keep working while thousands of idle connections are open', async () => {
    const pid = service.child.pid as number;
    expect(readFileSync(`/proc/${pid}/limits`, 'utf8')).toMatch(new RegExp(`Max open files\\s+${FD_LIMIT}\\s`));
    const issuer = await loadDevIssuer(dataDir, 'deltabroker-dev', 'deltabroker');
    const token = await issuer.mint({ sub: 'flood-writer', tenant: 'acme', roles: ['admin', 'writer'], ttlSeconds: 3600 });
    const auth = { authorization: `Bearer ${token}` };
    const { id: schemaId } = await registry.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(schemas.DeltaEnvelope.definition) },
      { subject: 'deltas-value' },
    );

    const started = [0, 1, 2].map((f) =>
      flood(
        kafkaPort,
        [1, 2, 3].map((a) => `127.0.${f + 1}.${a}`),
      ),
    );
    flooders.push(...started.map((s) => s.child));
    const reports = await Promise.all(started.map((s) => s.report));
    const connected = reports.reduce((n, r) => n + r.connected, 0);
    expect(connected).toBeGreaterThan(FD_LIMIT); // the flood really outnumbers the service's descriptors
    // The broker holds at most half the process's descriptors; it closed every connection beyond that.
    expect(reports.reduce((n, r) => n + r.open, 0)).toBeLessThanOrEqual(FD_LIMIT / 2);

    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    const write = await post(
      `${service.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'fl-1', name: 'During the flood' } },
      auth,
    );
    expect(write.status).toBe(201);
    const read = await post(
      `${service.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'read', after: write.body.position }, payload: 'eq(merchantId,fl-1)' },
      auth,
    );
    expect(read).toMatchObject({ status: 200, body: { items: [expect.objectContaining({ merchantId: 'fl-1' })] } });

    const delta: DeltaEnvelope = {
      id: randomUUID(),
      requestId: null,
      tenant: 'acme',
      entity: 'merchant_account',
      operation: 'create',
      key: 'fl-2',
      payload: JSON.stringify({ merchantId: 'fl-2', name: 'From kafkajs during the flood' }),
      actor: { user: 'flood-writer', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    };
    await producer.send({
      topic: 'deltas',
      messages: [{ key: 'acme/merchant_account/fl-2', value: await registry.encode(schemaId, delta), headers: { authorization: `Bearer ${token}` } }],
    });
    await eventually(
      async () =>
        (await post(`${service.url}/`, { dispatch: { entity: 'merchant_account', operation: 'read' }, payload: 'eq(merchantId,fl-2)' }, auth)).body
          .items as unknown[],
      (items) => items.length === 1,
      20_000,
    );
    expect(readdirSync(`/proc/${pid}/fd`).length).toBeLessThan(FD_LIMIT);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});
