/**
 * Topic identity: a persistence topic deleted and created again (through kafkajs's admin, over the Kafka
 * protocol) restarts at offset 0 under checkpoints and group offsets that counted the old topic. The table
 * projector and the action emitters must stop such a partition with DB_TOPIC_RECREATED instead of passing its
 * new records off as applied, while their other topics keep working; once the projection is rebuilt from the new
 * topic, the stopped partition is consumed again without a restart (Subscription.resumeAt). Run with both write-log
 * adapters.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startActionEmitters } from '../../../projections/action-emitter';
import { readCheckpoint } from '../../../projections/postgres/checkpoint-store';
import { startTableProjector, type TableProjector } from '../../../projections/postgres/table-projector';
import { rebuildProjections } from '../../../projections/replay';
import { StoppedTopics, type StoppedPartition } from '../../../projections/stopped-topics';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas, type LogPosition, type Subscription, type WriteLog } from '../../../src/log';
import { openInProcessWriteLog } from '../../../src/log/in-process';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import { silentLogger } from '../../../src/logger';
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { migrate } from '../../../src/store/migrator';
import type { EntityConfig } from '../../../src/tenant';
import { persistenceTopicSpec, PIPELINE_GROUPS } from '../../../src/log/topology';
import { scratchPostgres, type ScratchSql } from '../../support/scratch-sql';
import { eventually } from '../../support/topics';
import { qualifiedTable } from '../../support/entities';
import { accountConfig, configSource, entityEvent, uniqueEntity } from './projection-fixtures';

type Adapter = 'in-process' | 'kafkajs';

describe.each<Adapter>(['in-process', 'kafkajs'])('topic identity with the %s adapter', (adapter) => {
  const schemas = loadSchemas();
  let dataDir = '';
  let kafka: EmbeddedKafka;
  let registry: EmbeddedRegistry;
  let log: WriteLog;
  let db: ScratchSql;
  let admin: Admin;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'topic-identity-'));
    kafka = await startEmbeddedKafka({ dataDir: path.join(dataDir, 'kafka'), port: 0 });
    registry = await startEmbeddedRegistry({ dataDir: path.join(dataDir, 'registry'), port: 0 });
    log =
      adapter === 'in-process'
        ? await openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url })
        : await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url, logger: silentLogger(), fetchMaxWaitMs: 100, endSettleMs: 0 }); // one node: its end never trails
    db = await scratchPostgres('dbt_topic_identity');
    await migrate(db.sql, silentLogger());
    admin = new Kafka({ brokers: kafka.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await log?.close();
    await db?.close();
    await registry?.stop();
    await kafka?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Events for keys `k0…` on partition 0 of the entity's persistence topic. */
  const publish = (config: EntityConfig, keys: readonly string[]): Promise<LogPosition[]> =>
    log.publish(
      keys.map((key) => ({
        topic: config.persistence.topic,
        key: `${config.tenant}/${config.entity}/${key}`,
        partition: 0,
        value: entityEvent(config, { operation: 'create', key, version: 1, payload: { accountId: key } }),
        schema: schemas.EntityEvent,
      })),
    );
  const keysIn = async (config: EntityConfig): Promise<string[]> =>
    (await db.sql.query<{ accountId: string }>(`select "accountId" from ${qualifiedTable(config)} order by "accountId"`)).rows.map((r) => r.accountId);
  const recreate = async (config: EntityConfig): Promise<void> => {
    await admin.deleteTopics({ topics: [config.persistence.topic] });
    const spec = persistenceTopicSpec(config.persistence.topic);
    await admin.createTopics({ topics: [{ topic: spec.topic, numPartitions: spec.partitions, configEntries: [{ name: 'retention.ms', value: '-1' }] }] });
  };

  test('the table projector stops a recreated topic with DB_TOPIC_RECREATED; its other topic keeps projecting; a restart stops it at once', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('recreated')), accountConfig(uniqueEntity('kept')));
    const [recreated, kept] = configs as [EntityConfig, EntityConfig];
    const groupId = uniqueEntity('projector');
    const reports: StoppedPartition[] = [];
    const stopped = new StoppedTopics((partition) => reports.push(partition));
    let projector: TableProjector = await startTableProjector({ log, schemas, entities, sql: db.sql, logger: silentLogger(), groupId, stopped });
    try {
      const first = [...(await publish(recreated, ['a1', 'a2', 'a3'])), ...(await publish(kept, ['b1']))];
      expect(await Promise.all(first.map((p) => projector.waitFor(p, 20_000)))).toEqual([true, true, true, true]);
      const checkpoint = { projector: groupId, topic: recreated.persistence.topic, partition: 0 };
      expect(await readCheckpoint(db.sql, checkpoint)).toBe(3n);

      await recreate(recreated);
      const [fresh] = await publish(recreated, ['a-new']);
      expect(fresh?.offset).toBe('0'); // below the checkpoint: without the check it would pass for applied
      const [keptLater] = await publish(kept, ['b2']);
      expect(await projector.waitFor(keptLater as LogPosition, 20_000)).toBe(true);
      await eventually(
        async () => reports.length,
        (n) => n > 0,
      );

      expect(reports).toEqual([expect.objectContaining({ consumer: groupId, topic: recreated.persistence.topic, partition: 0, position: '3' })]);
      await expect(stopped.check()).rejects.toThrow(/DB_TOPIC_RECREATED: .*position is 3/);
      expect(await keysIn(recreated)).toEqual(['a1', 'a2', 'a3']); // a-new is neither applied nor passed over
      expect(await readCheckpoint(db.sql, checkpoint)).toBe(3n);
      expect(await keysIn(kept)).toEqual(['b1', 'b2']);
      const [keptLast] = await publish(kept, ['b3']);
      expect(await projector.waitFor(keptLast as LogPosition, 20_000)).toBe(true);

      // A restart finds the checkpoint beyond the partition's end before any record arrives.
      await projector.stop();
      const afterRestart = new StoppedTopics();
      projector = await startTableProjector({ log, schemas, entities, sql: db.sql, logger: silentLogger(), groupId, stopped: afterRestart });
      expect(afterRestart.list()).toEqual([expect.objectContaining({ topic: recreated.persistence.topic, partition: 0, position: '3', highWatermark: '1' })]);
      await publish(recreated, ['a-newer']);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await keysIn(recreated)).toEqual(['a1', 'a2', 'a3']);
      expect(await readCheckpoint(db.sql, checkpoint)).toBe(3n);
    } finally {
      await projector.stop();
    }
  });

  test('a stopped partition is consumed again, from the new checkpoint, once the table is rebuilt from the new topic', async () => {
    const { entities, configs } = configSource(accountConfig(uniqueEntity('resumed')));
    const config = configs[0] as EntityConfig;
    const groupId = uniqueEntity('projector');
    const stopped = new StoppedTopics();
    const projector = await startTableProjector({ log, schemas, entities, sql: db.sql, logger: silentLogger(), groupId, stopped });
    try {
      const first = await publish(config, ['a1', 'a2', 'a3']);
      expect(await projector.waitFor(first[2] as LogPosition, 20_000)).toBe(true);
      await recreate(config);
      await publish(config, ['a-new']);
      await eventually(
        async () => stopped.list().length,
        (n) => n > 0,
      );
      const checkpoint = { projector: groupId, topic: config.persistence.topic, partition: 0 };
      const [stop] = stopped.list();
      // Resuming before the rebuild would apply the new topic under the old checkpoint: refused, and still stopped.
      await expect(stopped.resume(stop as StoppedPartition)).rejects.toThrow(/checkpoint 3 still lies beyond the partition's end 1/);
      expect(stopped.list()).toHaveLength(1);

      const ctx = {
        log,
        schemas,
        entities,
        sql: db.sql,
        logger: silentLogger(),
        search: createPostgresSearchIndex(db.sql),
        liveProjectors: { postgres: groupId },
      };
      const rebuilt = await rebuildProjections(ctx, { tenant: config.tenant, entity: config.entity, target: 'postgres' }, { handover: 'replace' });
      expect(rebuilt.targets[0]?.handover).toContainEqual({ partition: 0, before: '3', after: '1' });
      expect(await readCheckpoint(db.sql, checkpoint)).toBe(1n);
      expect(await keysIn(config)).toEqual(['a-new']);

      await stopped.resume(stop as StoppedPartition);
      expect(stopped.list()).toEqual([]);
      const [later] = await publish(config, ['a-later']);
      expect(await projector.waitFor(later as LogPosition, 20_000)).toBe(true);
      expect(await keysIn(config)).toEqual(['a-later', 'a-new']);
      expect(await readCheckpoint(db.sql, checkpoint)).toBe(2n);
    } finally {
      await projector.stop();
    }
  });

  test('a rebuild that would replace the live checkpoints of a topic other entities share is refused', async () => {
    const topic = `acme.${uniqueEntity('shared')}.events`;
    const { entities, configs } = configSource(
      { ...accountConfig(uniqueEntity('one')), persistence: { topic } },
      { ...accountConfig(uniqueEntity('two')), persistence: { topic } },
    );
    const config = configs[0] as EntityConfig;
    const ctx = { log, schemas, entities, sql: db.sql, logger: silentLogger(), search: createPostgresSearchIndex(db.sql) };
    await expect(rebuildProjections(ctx, { tenant: config.tenant, entity: config.entity, target: 'postgres' }, { handover: 'replace' })).rejects.toMatchObject({
      code: 'DB_CONFLICT',
      details: { rule: 'own-topic' },
    });
  });

  test('an action emitter whose committed offset lies beyond its partition stops that partition instead of resetting', async () => {
    const config = { ...accountConfig(uniqueEntity('emitted')), notifications: ['global'] };
    const { entities, configs } = configSource(config);
    const entity = configs[0] as EntityConfig;
    await log.createTopics([persistenceTopicSpec(entity.persistence.topic)]);
    await publish(entity, ['e1', 'e2']);
    // Offsets that outlived their topic (restored from a backup, or kept by a cluster across a re-creation).
    const group = PIPELINE_GROUPS.globalEmitter;
    await admin.setOffsets({ groupId: group, topic: entity.persistence.topic, partitions: [{ partition: 0, offset: '7' }] });
    const reports: StoppedPartition[] = [];
    const stopped = new StoppedTopics((partition) => reports.push(partition));
    const emitters: Subscription[] = await startActionEmitters({
      log,
      schemas,
      entities,
      datacenter: 'dc1',
      logger: silentLogger(),
      stopped,
      delivery: { guarantee: 'exactly-once', instanceId: 'topic-identity' },
    });
    try {
      await eventually(
        async () => reports.length,
        (n) => n > 0,
      );
      expect(reports).toEqual([expect.objectContaining({ consumer: group, topic: entity.persistence.topic, partition: 0, position: '7', highWatermark: '2' })]);
      expect(stopped.errorOf(group, entity.persistence.topic, 0)?.code).toBe('DB_TOPIC_RECREATED');
      const committed = await admin.fetchOffsets({ groupId: group, topics: [entity.persistence.topic] });
      expect(committed[0]?.partitions.find((p) => p.partition === 0)?.offset).toBe('7'); // not reset
    } finally {
      await Promise.all(emitters.map((e) => e.stop()));
    }
  });
});
