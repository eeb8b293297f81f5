import { Kafka, logLevel } from 'kafkajs';
import { loadConfig, type Config } from '../../../src/config';
import { recordSchema } from '../../../src/log';
import type { TopicDescription, TopicSummary } from '../../../src/broker/log-topics';
import { testEntitiesDir } from '../../support/entities';
import { post, startTestService, type TestService } from '../../support/service';
import { eventually } from '../../support/topics';
import { runCli } from './run-cli';

const EVENTS = 'acme.merchant_account.events';
const probe = recordSchema<{ n: number }>({ type: 'record', name: 'CliLagProbe', fields: [{ name: 'n', type: 'int' }] });

/** `deltabroker topics list|describe` against a running service's embedded broker. */
describe('deltabroker topics', () => {
  let t: TestService;
  let cli: Config;
  let written: { partition: number; offset: string };

  beforeAll(async () => {
    const entities = testEntitiesDir();
    t = await startTestService({ env: { DELTABROKER_ENTITIES_DIR: entities, DELTABROKER_KAFKA_NUM_PARTITIONS: '5' } });
    const port = (t.service.brokers[0] ?? '').split(':')[1] ?? '';
    // What an operator's shell would have: no brokers configured, the service's embedded broker port.
    cli = loadConfig({ DELTABROKER_DATA_DIR: t.config.dataDir, DELTABROKER_KAFKA_PORT: port, DELTABROKER_ENTITIES_DIR: entities });
    const writer = await t.token(['writer']);
    const created = await post(
      `${t.url}/`,
      { dispatch: { entity: 'merchant_account', operation: 'create' }, payload: { merchantId: 'm-cli-1', name: 'Ada' } },
      { authorization: `Bearer ${writer}` },
    );
    expect(created.status).toBe(201);
    written = created.body.position as { partition: number; offset: string };
  });
  afterAll(() => t.stop());

  test('list: every topic with its partition count and end offsets', async () => {
    const rows = JSON.parse(await runCli(cli, ['topics', 'list', '--json'])) as TopicSummary[];
    const events = rows.find((r) => r.topic === EVENTS);
    const offsets = await t.service.log.topicOffsets(EVENTS);
    expect(events).toEqual({
      topic: EVENTS,
      partitions: offsets.length,
      endOffset: offsets.reduce((sum, p) => sum + BigInt(p.high), 0n).toString(),
      records: offsets.reduce((sum, p) => sum + BigInt(p.high) - BigInt(p.low), 0n).toString(),
      endOffsets: offsets,
    });
    expect(events?.endOffsets.find((p) => p.partition === written.partition)?.high).toBe(String(Number(written.offset) + 1));
    expect(rows.map((r) => r.topic)).toEqual(expect.arrayContaining(['deltas', 'rejections', 'deltabroker.outcomes', EVENTS]));

    const table = (await runCli(cli, ['topics', 'list'])).split('\n');
    expect(table[0]).toMatch(/^TOPIC\s+PARTITIONS\s+END OFFSET\s+RECORDS\s+END OFFSETS BY PARTITION$/);
    expect(table.find((l) => l.startsWith(`${EVENTS} `))).toMatch(new RegExp(`^${EVENTS.replace(/\./g, '\\.')}\\s+${offsets.length}\\s+1\\s+1\\s`));
  });

  test('describe: partitions and the lag of the groups that read the topic', async () => {
    const describe = async () => JSON.parse(await runCli(cli, ['topics', 'describe', EVENTS, '--json'])) as TopicDescription;
    // The projectors and emitters commit after their batch; wait until each has committed the written partition.
    const d = await eventually(describe, (x) =>
      ['deltabroker-projector-postgres', 'deltabroker-projector-search', 'deltabroker-emitter-global', 'deltabroker-emitter-local-dc1'].every((group) =>
        x.groups.some((g) => g.group === group && g.partition === written.partition && g.lag === 0),
      ),
    );
    expect(d.partitions).toEqual(await t.service.log.topicOffsets(EVENTS));
    expect(d.groups.find((g) => g.group === 'deltabroker-projector-postgres' && g.partition === written.partition)).toMatchObject({
      committed: String(Number(written.offset) + 1),
      high: String(Number(written.offset) + 1),
    });
    expect(d.groups.some((g) => g.group === 'deltabroker-pipeline')).toBe(false);

    const text = await runCli(cli, ['topics', 'describe', 'deltas']);
    expect(text).toMatch(/^topic deltas: \d+ partitions\n\nPARTITION\s+LOW\s+HIGH\n/);
    expect(text).toMatch(/\nGROUP\s+PARTITION\s+COMMITTED\s+HIGH\s+LAG\n/);
    expect(text).toContain('deltabroker-pipeline');
  });

  test('describe --group: a group that consumed part of a topic shows the rest as lag', async () => {
    const topic = 'cli.lag.probe';
    await t.service.log.createTopics([{ topic, partitions: 1 }]);
    const publish = (ns: number[]) => t.service.log.publish(ns.map((n) => ({ topic, key: null, value: { n }, schema: probe })));
    await publish([1, 2, 3]);
    let seen = 0;
    const subscription = await t.service.log.subscribe<{ n: number }>({
      groupId: 'cli-lag-group',
      topics: [topic],
      handleBatch: async (b) => void (seen += b.records.length),
    });
    await subscription.joined;
    await eventually(
      async () => seen,
      (n) => n === 3,
    );
    await subscription.stop();
    await publish([4, 5]);

    const d = JSON.parse(await runCli(cli, ['topics', 'describe', topic, '--group', 'cli-lag-group', 'cli-never-group', '--json'])) as TopicDescription;
    expect(d.partitions).toEqual([{ partition: 0, low: '0', high: '5' }]);
    expect(d.groups).toEqual([
      { group: 'cli-lag-group', topic, partition: 0, high: '5', committed: '3', lag: 2 },
      { group: 'cli-never-group', topic, partition: 0, high: '5', committed: null, lag: 5 },
    ]);
  });

  test('a topic the embedded broker creates on first use gets DELTABROKER_KAFKA_NUM_PARTITIONS partitions', async () => {
    // A plain client that lets the broker create the topic (the service's own producer never does).
    const producer = new Kafka({ clientId: 'cli-auto', brokers: t.service.brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    await producer.send({ topic: 'cli.auto.created', messages: [{ value: 'x' }] });
    await producer.disconnect();
    const rows = JSON.parse(await runCli(cli, ['topics', 'list', '--json'])) as TopicSummary[];
    expect(rows.find((r) => r.topic === 'cli.auto.created')).toMatchObject({ partitions: 5, endOffset: '1' });
  });

  test('describe refuses a topic that does not exist', async () => {
    await expect(runCli(cli, ['topics', 'describe', 'no.such.topic'])).rejects.toMatchObject({ code: 'DB_NOT_FOUND' });
  });
});
