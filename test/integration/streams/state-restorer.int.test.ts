import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas, type EntityEvent, type WriteLog } from '../../../src/log';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import type { SqlClient } from '../../../src/store/sql-client';
import { FileEntityConfigSource } from '../../../src/tenant';
import { recordIdKey, type RecordId } from '../../../src/store/record-states/port';
import { PostgresRecordStateStore } from '../../../src/store/record-states/postgres-record-states';
import { restoreRecordState } from '../../../streams/state-restorer';
import { createFreshDatabase, type FreshDatabase } from '../../support/postgres';

const schemas = loadSchemas();
const TOPIC = 'acme.merchant_account.events';

/** Events on a persistence topic that the state store never recorded (a crash between the two) are caught up. */
describe('record state restore from the persistence topics', () => {
  let dir: string;
  let kafka: EmbeddedKafka;
  let registry: EmbeddedRegistry;
  let log: WriteLog;
  let db: FreshDatabase;
  let sql: SqlClient;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-restore-'));
    kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0 });
    registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
    log = await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url });
    db = await createFreshDatabase();
    sql = await openPgSqlClient(db.url);
    await migrate(sql, silentLogger());
  });
  afterAll(async () => {
    await log.close();
    await sql.close();
    await db.drop();
    await registry.stop();
    await kafka.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const event = (key: string, version: number, payload: Record<string, unknown> | null): EntityEvent => ({
    eventId: `e-${key}-${version}`,
    deltaId: `d-${key}-${version}`,
    requestId: null,
    tenant: 'acme',
    entity: 'merchant_account',
    operation: payload === null ? 'delete' : version === 1 ? 'create' : 'update',
    key,
    version,
    payload: payload === null ? null : JSON.stringify(payload),
    actor: { user: 'u', roles: ['admin'] },
    origin: { datacenter: 'dc1' },
    occurredAt: 1,
    recordedAt: 2,
  });

  test('applies what is missing, once, and resumes from its checkpoint', async () => {
    const entities = new FileEntityConfigSource({ directory: path.resolve(__dirname, '../../../config/entities') });
    const states = new PostgresRecordStateStore(sql);
    const stateOf = async (key: string) => {
      const id: RecordId = { tenant: 'acme', entity: 'merchant_account', key };
      return (await states.getMany([id])).get(recordIdKey(id));
    };
    const restore = () => restoreRecordState({ log, schemas, entities, states, logger: silentLogger() });
    const events = [
      event('a', 1, { merchantId: 'a', name: 'A' }),
      event('a', 2, { merchantId: 'a', name: 'A2' }),
      event('b', 1, { merchantId: 'b', name: 'B' }),
      event('b', 2, null),
    ];
    await log.createTopics([{ topic: TOPIC, partitions: 3 }]);
    await log.publish(events.map((value) => ({ topic: TOPIC, key: `acme/merchant_account/${value.key}`, value, schema: schemas.EntityEvent })));

    expect((await restore()).applied).toBe(4);
    expect(await stateOf('a')).toEqual({ version: 2, deleted: false, doc: { merchantId: 'a', name: 'A2' } });
    expect(await stateOf('b')).toEqual({ version: 2, deleted: true, doc: null });
    expect(await states.outcome('d-a-1', 'acme')).toMatchObject({ status: 'accepted', eventId: 'e-a-1', version: 1, topic: TOPIC });

    // Nothing new: the checkpoint says so, and nothing is read again.
    expect((await restore()).applied).toBe(0);
    await log.publish([{ topic: TOPIC, key: 'acme/merchant_account/a', value: event('a', 3, { merchantId: 'a', name: 'A3' }), schema: schemas.EntityEvent }]);
    expect((await restore()).applied).toBe(1);
    expect((await stateOf('a'))?.version).toBe(3);
  });
});
