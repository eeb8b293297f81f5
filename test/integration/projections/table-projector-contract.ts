/**
 * The table projector end to end: EntityEvents published on a persistence topic of the embedded Kafka
 * broker, a real consumer group, the projection tables on one SQL backend. Covers read-your-writes through
 * waitFor, a crash between the database commit and the offset commit, and a restart whose committed offsets
 * lag behind the stored checkpoint (it starts at the checkpoint). Run against PostgreSQL.
 */
import { qualifiedTable } from '../../support/entities';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import type { BatchReport } from '../../../projections/postgres/table-projection';
import { startTableProjector, type TableProjector } from '../../../projections/postgres/table-projector';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas, type LogPosition, type WriteLog } from '../../../src/log';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import { silentLogger } from '../../../src/logger';
import { migrate } from '../../../src/store/migrator';
import type { SqlClient } from '../../../src/store/sql-client';
import type { EntityConfig, EntityConfigSource } from '../../../src/tenant';
import { eventually } from '../../support/topics';
import { accountConfig, asNumber, configSource, entityEvent, faultySql, uniqueEntity, type EventSpec } from './projection-fixtures';
import type { SqlBackend } from './table-projection-contract';

type Row = Record<string, unknown>;

export function describeTableProjectorOnLog(name: string, open: () => Promise<SqlBackend>): void {
  describe(`table projector on the embedded broker and ${name}`, () => {
    const schemas = loadSchemas();
    let dataDir = '';
    let kafka: EmbeddedKafka | undefined;
    let registry: EmbeddedRegistry | undefined;
    let log: WriteLog | undefined;
    let backend: SqlBackend | undefined;
    const running: TableProjector[] = [];

    const sql = (): SqlClient => backend?.sql ?? fail('backend not open');
    const theLog = (): WriteLog => log ?? fail('log not open');
    const start = async (
      entities: EntityConfigSource,
      groupId: string,
      client: SqlClient = sql(),
      onBatch?: (r: BatchReport) => void,
    ): Promise<TableProjector> => {
      const projector = await startTableProjector({
        log: theLog(),
        schemas,
        entities,
        sql: client,
        logger: silentLogger(),
        groupId,
        ...(onBatch ? { onBatch } : {}),
      });
      running.push(projector);
      return projector;
    };
    const publish = (config: EntityConfig, specs: readonly EventSpec[]): Promise<LogPosition[]> =>
      theLog().publish(
        specs.map((spec) => ({
          topic: config.persistence.topic,
          key: `${config.tenant}/${config.entity}/${spec.key}`,
          value: entityEvent(config, spec),
          schema: schemas.EntityEvent,
        })),
      );
    const rows = async (config: EntityConfig): Promise<Row[]> => (await sql().query<Row>(`select * from ${qualifiedTable(config)} order by "accountId"`)).rows;
    const waitForAll = async (projector: TableProjector, positions: readonly LogPosition[]): Promise<boolean[]> =>
      Promise.all(positions.map((p) => projector.waitFor(p, 20_000)));

    beforeAll(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'deltabroker-projector-'));
      kafka = await startEmbeddedKafka({ dataDir: path.join(dataDir, 'kafka'), port: 0 });
      registry = await startEmbeddedRegistry({ dataDir: path.join(dataDir, 'registry'), port: 0 });
      log = await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url, logger: silentLogger(), fetchMaxWaitMs: 100 });
      backend = await open();
      await migrate(backend.sql, silentLogger());
    });
    afterAll(async () => {
      for (const projector of running) await projector.stop();
      await log?.close();
      await backend?.close();
      await registry?.stop();
      await kafka?.stop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    test('projects create, update and delete from the persistence topic; waitFor gives read-your-writes', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('live')));
      const config = configs[0] as EntityConfig;
      const projector = await start(entities, uniqueEntity('group'));
      expect(projector.topics).toEqual([config.persistence.topic]);

      const created = await publish(config, [
        { operation: 'create', key: 'a', version: 1, payload: { accountId: 'a', name: 'Alpha', mcc: 5411, active: true } },
        { operation: 'create', key: 'b', version: 1, payload: { accountId: 'b', name: 'Beta' } },
      ]);
      expect(await waitForAll(projector, created)).toEqual([true, true]);
      expect((await rows(config)).map((r) => r.accountId)).toEqual(['a', 'b']);

      const changed = await publish(config, [
        { operation: 'update', key: 'a', version: 2, payload: { accountId: 'a', score: 4.5 } },
        { operation: 'delete', key: 'b', version: 2 },
      ]);
      expect(await waitForAll(projector, changed)).toEqual([true, true]);
      const [a, ...others] = await rows(config);
      expect(others).toEqual([]);
      expect(a).toMatchObject({
        accountId: 'a',
        name: 'Alpha',
        score: 4.5,
        active: true,
        _position: `${changed[0]?.topic}/${changed[0]?.partition}/${changed[0]?.offset}`,
      });
      expect(asNumber(a?.mcc)).toBe(5411);
      expect(asNumber(a?._version)).toBe(2);

      const beyond = { ...(changed[0] as LogPosition), offset: '1000' };
      expect(await projector.waitFor(beyond, 300)).toBe(false);
    });

    test('given a linger, a small round after a small round waits that long for more; the first does not', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('linger')));
      const config = configs[0] as EntityConfig;
      const lingerMs = 800;
      const projector = await startTableProjector({
        log: theLog(),
        schemas,
        entities,
        sql: sql(),
        logger: silentLogger(),
        groupId: uniqueEntity('group'),
        lingerMs,
      });
      running.push(projector);
      const first = await publish(config, [{ operation: 'create', key: 'a', version: 1, payload: { accountId: 'a' } }]);
      expect(await waitForAll(projector, first)).toEqual([true]);
      const published = Date.now();
      const second = await publish(config, [{ operation: 'create', key: 'b', version: 1, payload: { accountId: 'b' } }]);
      expect(await waitForAll(projector, second)).toEqual([true]);
      // Without the linger this round is applied within a fetch's wait (100 ms here).
      expect(Date.now() - published).toBeGreaterThanOrEqual(lingerMs - 100);
      expect((await rows(config)).map((r) => r.accountId)).toEqual(['a', 'b']);
    });

    test('a field the configuration gains while running becomes a column on the next batch', async () => {
      const entity = uniqueEntity('grow');
      const { entities, configs } = configSource(accountConfig(entity));
      const v1 = configs[0] as EntityConfig;
      const projector = await start(entities, uniqueEntity('group'));
      // Published by a pipeline that already knew `tier`, projected while the projector did not.
      const early = await publish(v1, [{ operation: 'create', key: 'g1', version: 1, payload: { accountId: 'g1', tier: 'gold' } }]);
      expect(await waitForAll(projector, early)).toEqual([true]);
      const v2 = entities.put({ ...accountConfig(entity, { tier: { type: 'string' } }), version: 2 });
      const late = await publish(v2, [{ operation: 'create', key: 'g2', version: 1, payload: { accountId: 'g2', tier: 'silver' } }]);
      expect(await waitForAll(projector, late)).toEqual([true]);
      const tiers = (await sql().query<Row>(`select "accountId", tier from ${qualifiedTable(v2)} order by "accountId"`)).rows;
      expect(tiers).toEqual([
        { accountId: 'g1', tier: 'gold' },
        { accountId: 'g2', tier: 'silver' },
      ]);
    });

    test('refuses to start when a field changed type, naming the rebuild', async () => {
      const entity = uniqueEntity('retype');
      const { entities } = configSource(accountConfig(entity));
      await (await start(entities, uniqueEntity('group'))).stop();
      const retyped = configSource(accountConfig(entity, { mcc: { type: 'string' } })).entities;
      await expect(start(retyped, uniqueEntity('group'))).rejects.toMatchObject({ code: 'DB_CONFLICT', details: { field: 'mcc', rule: 'column-type' } });
    });

    test('a crash between the database commit and the offset commit: the batch comes again and takes effect once', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('crash')));
      const config = configs[0] as EntityConfig;
      const table = qualifiedTable(config);
      // Every row write leaves its position in an audit table: a second application would show twice.
      const bootstrap = await start(entities, uniqueEntity('bootstrap'));
      await bootstrap.stop();
      const audit = `audit_${config.entity}`;
      await sql().query(`create table ${audit} (position text not null)`);
      await sql().query(`create function ${audit}_fn() returns trigger language plpgsql as $$
        begin insert into ${audit} values (new."_position"); return new; end $$`);
      await sql().query(`create trigger audit after insert or update on ${table} for each row execute function ${audit}_fn()`);

      let armed = false;
      let crashes = 0;
      const client = faultySql(sql(), {
        afterCommit: () => {
          if (!armed || crashes > 0) return undefined;
          crashes += 1;
          return new Error('crashed after commit');
        },
      });
      const reports: BatchReport[] = [];
      const projector = await start(entities, uniqueEntity('group'), client, (r) => reports.push(r));
      armed = true;
      const specs: EventSpec[] = [];
      for (let v = 1; v <= 4; v += 1) {
        for (const key of ['k1', 'k2', 'k3', 'k4', 'k5'])
          specs.push({ operation: v === 1 ? 'create' : 'update', key, version: v, payload: { accountId: key, mcc: v } });
      }
      const published = await publish(config, specs);
      expect(await waitForAll(projector, published)).toEqual(published.map(() => true));

      expect(crashes).toBe(1);
      // The crashed batch is redelivered and found below the checkpoint.
      await eventually(
        async () => reports.reduce((n, r) => n + r.alreadyApplied, 0),
        (n) => n > 0,
      );
      const appliedOffsets = reports.flatMap((r) => r.appliedOffsets.map((o) => `${r.topic}/${r.partition}/${o}`));
      expect(new Set(appliedOffsets).size).toBe(appliedOffsets.length);
      const written = (await sql().query<{ position: string }>(`select position from ${audit}`)).rows.map((r) => r.position);
      expect(written.length).toBeGreaterThan(0);
      expect(new Set(written).size).toBe(written.length);
      const finals = (await rows(config)).map((r) => [r.accountId, asNumber(r._version), asNumber(r.mcc)]);
      expect(finals).toEqual(['k1', 'k2', 'k3', 'k4', 'k5'].map((k) => [k, 4, 4]));
    });

    test('restarted with the committed offsets behind its checkpoint: it starts at the checkpoint, reading nothing applied again', async () => {
      const { entities, configs } = configSource(accountConfig(uniqueEntity('restart')));
      const config = configs[0] as EntityConfig;
      const groupId = uniqueEntity('group');
      const first = await start(entities, groupId);
      const published = await publish(config, [
        { operation: 'create', key: 'r1', version: 1, payload: { accountId: 'r1', name: 'one' } },
        { operation: 'create', key: 'r2', version: 1, payload: { accountId: 'r2', name: 'two' } },
      ]);
      expect(await waitForAll(first, published)).toEqual([true, true]);
      await first.stop();
      // The log forgets the group's progress; the database keeps it. Tampered rows show any re-application.
      await resetGroupToEarliest(kafka?.brokers ?? [], groupId, config.persistence.topic);
      await sql().query(`update ${qualifiedTable(config)} set name = 'tampered', "_version" = 0`);

      const reports: BatchReport[] = [];
      const second = await start(entities, groupId, sql(), (r) => reports.push(r));
      const more = await publish(config, [{ operation: 'create', key: 'r3', version: 1, payload: { accountId: 'r3', name: 'three' } }]);
      expect(await waitForAll(second, more)).toEqual([true]);
      expect(reports.flatMap((r) => r.appliedOffsets)).toEqual([more[0]?.offset]);
      expect(reports.reduce((n, r) => n + r.alreadyApplied, 0)).toBe(0);
      expect((await rows(config)).map((r) => [r.accountId, r.name])).toEqual([
        ['r1', 'tampered'],
        ['r2', 'tampered'],
        ['r3', 'three'],
      ]);
    });
  });
}

const fail = (message: string): never => {
  throw new Error(message);
};

/**
 * Moves a (stopped) consumer group's committed offsets back to 0 on every partition of a topic: a plain
 * kafkajs member joins the group, commits offset 0 without handling anything, and leaves.
 */
async function resetGroupToEarliest(brokers: readonly string[], groupId: string, topic: string): Promise<void> {
  const kafka = new Kafka({ clientId: 'projector-test', brokers: [...brokers], logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
  const joined = new Promise<number[]>((resolve) => {
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => resolve(payload.memberAssignment[topic] ?? []));
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
    const partitions = await joined;
    await consumer.commitOffsets(partitions.map((partition) => ({ topic, partition, offset: '0' })));
  } finally {
    await consumer.disconnect();
  }
}
