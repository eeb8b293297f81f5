/**
 * The write service on the real write path of one machine: the in-process write log on the embedded broker and
 * registry, the delta processor deciding against the in-memory record state store, and the outcome waiter
 * answering the caller. Asserts what a caller gets: accepted results with their log position, refusals with
 * their stage, field and rule, idempotent retries, sealed envelopes, and the typed failures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createActorProofVerifier } from '../../../src/auth/actor-proof';
import { DeltaSeal, DELTA_SEAL_HEADER } from '../../../src/auth/delta-seal';
import { loadDevIssuer } from '../../../src/auth/dev-issuer';
import { createJwtVerifier } from '../../../src/auth/jwt-verifier';
import type { Principal } from '../../../src/auth/principal';
import { OutcomeWaiter } from '../../../src/broker/outcome-waiter';
import { WriteService, type WriteCommand, type WriteServiceOptions } from '../../../src/broker/write-service';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas, type DeltaEnvelope, type LogRecord, type Subscription, type WriteLog } from '../../../src/log';
import { openInProcessWriteLog } from '../../../src/log/in-process';
import { silentLogger } from '../../../src/logger';
import { InMemoryRecordStateStore } from '../../../src/store/record-states/in-memory-record-states';
import { InMemoryEntityConfigSource } from '../../../src/tenant';
import { startDeltaProcessor } from '../../../streams/delta-processor';
import { registerRecordSchemas } from '../../../streams/schema-registration';
import { PIPELINE_TOPICS } from '../../../src/log/topology';
import { defaultConfigInput } from '../../unit/tenant/fixtures';

const schemas = loadSchemas();
const ada: Principal = { user: 'ada', tenant: 'acme', roles: ['writer'] };
const command = (over: Partial<WriteCommand> = {}): WriteCommand => ({
  entity: 'merchant_account',
  operation: 'create',
  payload: { merchantId: `m-${Math.random().toString(36).slice(2)}`, name: 'Ada' },
  requestId: 'req-1',
  async: false,
  ...over,
});

describe('write service on the in-process write path', () => {
  let dir: string;
  let stopEngines: () => Promise<void>;
  let openLog: () => Promise<WriteLog>;
  let log: WriteLog;
  let processor: Subscription;
  let waiter: OutcomeWaiter;
  let options: WriteServiceOptions;
  let writes: WriteService;
  const seal = new DeltaSeal(Buffer.alloc(32, 7));

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'write-service-'));
    const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0, autoCreateTopics: false });
    const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
    stopEngines = async () => {
      await registry.stop();
      await kafka.stop();
    };
    openLog = () => openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url, rejectionsTopic: PIPELINE_TOPICS.rejections });
    log = await openLog();
    const entities = new InMemoryEntityConfigSource([defaultConfigInput()]);
    await log.createTopics([
      { topic: PIPELINE_TOPICS.deltas, partitions: 6 },
      { topic: 'acme.merchant_account.events', partitions: 3 },
    ]);
    await registerRecordSchemas({ log, schemas, entities, datacenter: 'dc1' });
    const states = new InMemoryRecordStateStore();
    const issuer = await loadDevIssuer(dir, 'deltabroker-test', 'deltabroker');
    const tokens = await createJwtVerifier({
      issuer: 'deltabroker-test',
      audience: 'deltabroker',
      tenantClaim: 'tenant',
      rolesClaim: 'roles',
      devPublicKey: issuer.publicKey,
    });
    waiter = new OutcomeWaiter();
    processor = await startDeltaProcessor({
      log,
      schemas,
      entities,
      states,
      actors: createActorProofVerifier({ seal, tokens }),
      logger: silentLogger(),
      onVerdict: (outcome) => waiter.deliver(outcome),
    });
    options = { log, schemas, entities, states, waiter, datacenter: 'dc1', timeoutMs: 10_000, seal };
    writes = new WriteService(options);
  }, 60_000);

  afterAll(async () => {
    await processor?.stop();
    await log?.close();
    await stopEngines?.();
    rmSync(dir, { recursive: true, force: true });
  });

  test('an accepted create answers its version, key and position on the persistence topic', async () => {
    const result = await writes.write(ada, command({ payload: { merchantId: 'm-accepted', name: 'Ada' } }));
    expect(result).toMatchObject({
      status: 'accepted',
      entity: 'merchant_account',
      key: 'm-accepted',
      version: 1,
      position: { topic: 'acme.merchant_account.events' },
    });
    const next = await writes.write(ada, command({ operation: 'update', payload: { merchantId: 'm-accepted', name: 'Ada L.' }, expectedVersion: 1 }));
    expect(next).toMatchObject({ status: 'accepted', version: 2 });
  });

  test("a refusal is thrown as the pipeline's typed error: code, stage, field, rule", async () => {
    await expect(writes.write(ada, command({ payload: { merchantId: 'm-refused', name: 'Ada', nickname: 'x' } }))).rejects.toMatchObject({
      name: 'DeltabrokerError',
      code: 'DB_VALIDATION',
      details: { stage: 'validate', field: 'payload.nickname', rule: 'unknown-field' },
    });
    await expect(writes.write(ada, command({ operation: 'update', payload: { merchantId: 'm-nobody', name: 'Ada' } }))).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { stage: 'record-key', rule: 'exists' },
    });
  });

  test('the same idempotency key answers the same outcome, and writes nothing again', async () => {
    const first = await writes.write(ada, command({ deltaId: 'idem-1', payload: { merchantId: 'm-idem', name: 'Ada' } }));
    const written = async () => (await log.topicOffsets('acme.merchant_account.events')).map((p) => p.high);
    const before = await written();
    const again = await writes.write(ada, command({ deltaId: 'idem-1', payload: { merchantId: 'm-idem', name: 'Changed' } }));
    expect(again).toMatchObject({ status: 'accepted', deltaId: 'idem-1', version: 1, position: (first as { position: unknown }).position });
    expect(await written()).toEqual(before);
    const refusal = { code: 'DB_VALIDATION', details: { stage: 'validate', rule: 'unknown-field' } };
    await expect(writes.write(ada, command({ deltaId: 'idem-2', payload: { merchantId: 'm-idem-2', name: 'A', nickname: 'x' } }))).rejects.toMatchObject(
      refusal,
    );
    await expect(writes.write(ada, command({ deltaId: 'idem-2', payload: { merchantId: 'm-idem-2', name: 'A' } }))).rejects.toMatchObject(refusal);
  });

  test("an async write answers once the delta is on the log: the caller's envelope, sealed by the service", async () => {
    const result = await writes.write(ada, command({ async: true, payload: { merchantId: 'm-async', name: 'Ada' }, expectedVersion: 0 }));
    if (result.status !== 'pending') throw new Error(`expected pending, got ${result.status}`);
    const records: LogRecord<DeltaEnvelope>[] = [];
    await log.replay<DeltaEnvelope>({
      topic: PIPELINE_TOPICS.deltas,
      from: { kind: 'offsets', offsets: [{ partition: result.position.partition, offset: result.position.offset }] },
      readerSchema: schemas.DeltaEnvelope,
      handleBatch: async (batch) => void records.push(...batch.records.filter((r) => r.value.id === result.deltaId)),
    });
    const [record] = records;
    expect(record?.value).toMatchObject({
      tenant: 'acme',
      entity: 'merchant_account',
      key: 'm-async',
      actor: { user: 'ada', roles: ['writer'] },
      expectedVersion: 0,
      origin: { datacenter: 'dc1' },
    });
    expect(seal.verify(record?.value as DeltaEnvelope, record?.headers[DELTA_SEAL_HEADER])).toBe(true);
    expect(record?.headers['request-id']).toBe('req-1');
  });

  test('bad commands are refused before anything is published', async () => {
    await expect(writes.write(ada, command({ entity: 'invoice' }))).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { stage: 'entity-config', rule: 'configured-entity' },
    });
    await expect(writes.write({ ...ada, tenant: 'globex' }, command())).rejects.toMatchObject({ code: 'DB_NOT_FOUND', details: { field: 'dispatch.entity' } });
    await expect(writes.write(ada, command({ payload: { name: 'no key' } }))).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload.merchantId', rule: 'required' },
    });
    await expect(writes.write(ada, command({ payload: { merchantId: 'm-inf', name: 'A', mcc: Infinity } }))).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'payload.mcc', rule: 'finite-number' },
    });
  });

  test('no verdict in time is DB_TIMEOUT naming the delta; a log that does not acknowledge is DB_DEPENDENCY_UNAVAILABLE', async () => {
    const impatient = new WriteService({ ...options, timeoutMs: 1 });
    await expect(impatient.write(ada, command({ deltaId: 'slow-1' }))).rejects.toMatchObject({ code: 'DB_TIMEOUT', details: { deltaId: 'slow-1' } });
    const closed = await openLog();
    await closed.close();
    await expect(new WriteService({ ...options, log: closed }).write(ada, command())).rejects.toMatchObject({
      code: 'DB_DEPENDENCY_UNAVAILABLE',
      retriable: true,
      details: { stage: 'publish' },
    });
  });
});
