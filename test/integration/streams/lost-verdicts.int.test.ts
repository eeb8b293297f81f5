/**
 * The pipeline's verdicts are committed to PostgreSQL without waiting for the WAL flush, so a database crash may take
 * the last ones while their events are on the log. Here a database "loses" them as crash recovery would (the rows
 * written since the last flushed checkpoint, and the unlogged catch-up marks) while the pipeline runs: the next
 * delta on the record must be decided on the state the log holds, not on the gap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createActorProofVerifier } from '../../../src/auth/actor-proof';
import { DeltaSeal } from '../../../src/auth/delta-seal';
import { loadDevIssuer } from '../../../src/auth/dev-issuer';
import { createJwtVerifier } from '../../../src/auth/jwt-verifier';
import type { Principal } from '../../../src/auth/principal';
import { OutcomeWaiter } from '../../../src/broker/outcome-waiter';
import { WriteService, type WriteCommand } from '../../../src/broker/write-service';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas, type Subscription, type WriteLog } from '../../../src/log';
import { openInProcessWriteLog } from '../../../src/log/in-process';
import { PIPELINE_TOPICS } from '../../../src/log/topology';
import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import { PostgresRecordStateStore } from '../../../src/store/record-states/postgres-record-states';
import { InMemoryEntityConfigSource } from '../../../src/tenant';
import { startDeltaProcessor } from '../../../streams/delta-processor';
import { registerRecordSchemas } from '../../../streams/schema-registration';
import { catchUpRecordState, restoreRecordState } from '../../../streams/state-restorer';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';
import { defaultConfigInput } from '../../unit/tenant/fixtures';

const schemas = loadSchemas();
const ada: Principal = { user: 'ada', tenant: 'acme', roles: ['writer'] };
const TOPIC = 'acme.merchant_account.events';
const write = (over: Partial<WriteCommand>): WriteCommand => ({
  entity: 'merchant_account',
  operation: 'create',
  payload: {},
  requestId: 'req-lost',
  async: false,
  ...over,
});

describe('verdicts a database lost while the pipeline runs', () => {
  let dir: string;
  let stopEngines: () => Promise<void>;
  let log: WriteLog;
  let store: ScratchSql;
  let processor: Subscription;
  let waiter: OutcomeWaiter;
  let writes: WriteService;
  let catchUps = 0;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lost-verdicts-'));
    const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0, autoCreateTopics: false });
    const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
    stopEngines = async () => {
      await registry.stop();
      await kafka.stop();
    };
    log = await openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url, rejectionsTopic: PIPELINE_TOPICS.rejections });
    const entities = new InMemoryEntityConfigSource([defaultConfigInput()]);
    await log.createTopics([
      { topic: PIPELINE_TOPICS.deltas, partitions: 6 },
      { topic: TOPIC, partitions: 3 },
    ]);
    await registerRecordSchemas({ log, schemas, entities, datacenter: 'dc1' });
    store = await scratchPostgres('lost_verdicts');
    await migrate(store.sql, silentLogger());
    const states = new PostgresRecordStateStore(store.sql);
    const logger = silentLogger();
    const { recorded } = await restoreRecordState({ log, schemas, entities, states, logger });
    const issuer = await loadDevIssuer(dir, 'deltabroker-test', 'deltabroker');
    const tokens = await createJwtVerifier({
      issuer: 'deltabroker-test',
      audience: 'deltabroker',
      tenantClaim: 'tenant',
      rolesClaim: 'roles',
      devPublicKey: issuer.publicKey,
    });
    const seal = new DeltaSeal(Buffer.alloc(32, 9));
    waiter = new OutcomeWaiter();
    await waiter.start(log, schemas);
    processor = await startDeltaProcessor({
      log,
      schemas,
      entities,
      states,
      actors: createActorProofVerifier({ seal, tokens }),
      logger,
      recorded,
      catchUp: async () => {
        catchUps += 1;
        await catchUpRecordState({ log, schemas, entities, states, logger }, recorded);
      },
      onVerdict: (outcome) => waiter.deliver(outcome),
    });
    writes = new WriteService({ log, schemas, entities, states, waiter, datacenter: 'dc1', timeoutMs: 10_000, seal });
  }, 60_000);

  afterAll(async () => {
    await processor?.stop();
    await waiter?.stop();
    await log?.close();
    await store?.close();
    await stopEngines?.();
    rmSync(dir, { recursive: true, force: true });
  });

  const eventsOnLog = async (): Promise<number> => (await log.topicOffsets(TOPIC)).reduce((n, p) => n + Number(p.high), 0);

  test('the pipeline catches the store up before it decides on a record whose state was lost', async () => {
    await writes.write(ada, write({ deltaId: 'lost-1', payload: { merchantId: 'm-lost', name: 'Ada' } }));
    const second = await writes.write(ada, write({ operation: 'update', deltaId: 'lost-2', payload: { merchantId: 'm-lost', name: 'Ada L.' } }));
    expect(second).toMatchObject({ status: 'accepted', version: 2 });
    const caughtUpBefore = catchUps;
    const eventsBefore = await eventsOnLog();

    // What crash recovery takes: verdicts committed since the last flushed checkpoint, and every unlogged mark.
    await store.sql.query(`delete from record_state where record_key = 'm-lost'`);
    await store.sql.query(`delete from delta_outcomes where delta_id in ('lost-1', 'lost-2')`);
    await store.sql.query('delete from state_checkpoints');
    await store.sql.query('truncate state_store_marks');

    // Decided on the gap, this update would be refused: the record would not exist.
    const third = await writes.write(ada, write({ operation: 'update', deltaId: 'lost-3', payload: { merchantId: 'm-lost', name: 'Ada Lovelace' } }));
    expect(third).toMatchObject({ status: 'accepted', version: 3 });
    expect(catchUps).toBe(caughtUpBefore + 1);
    expect(await eventsOnLog()).toBe(eventsBefore + 1);
    const restored = await store.sql.query<{ version: string; doc: { name: string } }>(`select version, doc from record_state where record_key = 'm-lost'`);
    expect(restored.rows).toEqual([{ version: '3', doc: expect.objectContaining({ name: 'Ada Lovelace' }) }]);
    const outcomes = await store.sql.query<{ delta_id: string; version: string }>(
      `select delta_id, version from delta_outcomes where delta_id like 'lost-%' order by delta_id`,
    );
    expect(outcomes.rows.map((r) => [r.delta_id, Number(r.version)])).toEqual([
      ['lost-1', 1],
      ['lost-2', 2],
      ['lost-3', 3],
    ]);
  });

  test('while the mark stays, no batch catches up again', async () => {
    const before = catchUps;
    for (let i = 0; i < 5; i++) await writes.write(ada, write({ payload: { merchantId: `m-kept-${i}`, name: 'Ada' } }));
    expect(catchUps).toBe(before);
  });
});
