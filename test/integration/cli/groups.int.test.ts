import { Kafka, logLevel } from 'kafkajs';
import { loadConfig, type Config } from '../../../src/config';
import type { GroupReport, GroupSummary, OffsetReset } from '../../../src/cli/groups';
import type { AlteredTopic } from '../../../src/cli/topic-alter';
import { type EmbeddedKafka, startEmbeddedKafka } from '../../../src/embedded/kafka';
import { eventually } from '../../support/topics';
import { runCli } from './run-cli';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `deltabroker topics alter` and `topics groups …` against an embedded broker, checked through kafkajs. */
describe('deltabroker topics alter and topics groups', () => {
  let dir: string;
  let broker: EmbeddedKafka;
  let kafka: Kafka;
  let cli: Config;
  /** When the first of the ten records was written; record i is stamped t0 + i s. */
  let t0: number;
  const json = async <T>(args: string[]): Promise<T> => JSON.parse(await runCli(cli, [...args, '--json'])) as T;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-cli-groups-'));
    broker = await startEmbeddedKafka({ dataDir: dir, port: 0 });
    kafka = new Kafka({ clientId: 'cli-test', brokers: broker.brokers, logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 50 } });
    cli = loadConfig({ DELTABROKER_KAFKA_BROKERS: broker.brokers.join(','), DELTABROKER_DATA_DIR: dir });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'cli.orders', numPartitions: 2 }] });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    t0 = Date.now() - 60_000;
    for (let i = 0; i < 10; i++)
      await producer.send({ topic: 'cli.orders', messages: [{ value: `v${i}`, partition: i % 2, timestamp: String(t0 + i * 1000) }] });
    await producer.disconnect();
  });
  afterAll(async () => {
    await broker.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test("alter: adds partitions and sets retention, keeping the topic's other configs; refusals name the field", async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'cli.grow', numPartitions: 1, configEntries: [{ name: 'segment.ms', value: '600000' }] }] });
    await admin.disconnect();

    expect(await json<AlteredTopic>(['topics', 'alter', 'cli.grow', '--partitions', '3', '--retention-ms', '3600000', '--retention-bytes', '-1'])).toEqual({
      topic: 'cli.grow',
      partitions: 3,
      configs: { 'retention.ms': '3600000', 'retention.bytes': '-1', 'cleanup.policy': 'delete' },
    });
    await admin.connect();
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2, name: 'cli.grow', configNames: ['segment.ms', 'retention.ms'] }],
    });
    expect(Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, e.configValue]))).toEqual({
      'segment.ms': '600000',
      'retention.ms': '3600000',
    });
    expect((await admin.fetchTopicMetadata({ topics: ['cli.grow'] })).topics[0]!.partitions).toHaveLength(3);
    await admin.disconnect();

    const table = await runCli(cli, ['topics', 'alter', 'cli.grow', '--retention-ms', '-1']);
    expect(table).toMatch(/^topic cli\.grow: 3 partitions\n\nCONFIG\s+VALUE\nretention\.ms\s+-1\n/);
    await expect(runCli(cli, ['topics', 'alter', 'cli.grow', '--partitions', '2'])).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'partitions', rule: 'greater-than-current' },
    });
    await expect(runCli(cli, ['topics', 'alter', 'cli.grow'])).rejects.toMatchObject({ code: 'DB_VALIDATION', details: { field: 'options' } });
    await expect(runCli(cli, ['topics', 'alter', 'cli.none', '--retention-ms', '5'])).rejects.toMatchObject({
      code: 'DB_NOT_FOUND',
      details: { field: 'topic' },
    });
  });

  test('groups: list, describe with lag, refusals while members run, reset to earliest/latest/a time, delete', async () => {
    const consumer = kafka.consumer({ groupId: 'cli-readers', sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 100 });
    let seen = 0;
    await consumer.connect();
    await consumer.subscribe({ topic: 'cli.orders', fromBeginning: true });
    await consumer.run({ eachMessage: async () => void seen++ });
    await eventually(
      async () => seen,
      (n) => n === 10,
    );
    const active = await eventually(
      () => json<GroupReport>(['topics', 'groups', 'describe', 'cli-readers']),
      (r) => r.partitions.length === 2 && r.partitions.every((p) => p.lag === 0),
    );
    expect(active).toMatchObject({ groupId: 'cli-readers', state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner', members: 1 });
    expect(active.partitions.map((p) => [p.topic, p.partition, p.committed, p.high, p.lag])).toEqual([
      ['cli.orders', 0, '5', '5', 0],
      ['cli.orders', 1, '5', '5', 0],
    ]);
    expect(active.partitions[0]!.memberId).toEqual(expect.any(String));
    expect(await json<GroupSummary[]>(['topics', 'groups', 'list'])).toEqual([
      { groupId: 'cli-readers', protocolType: 'consumer', state: 'Stable', members: 1 },
    ]);
    expect(await runCli(cli, ['topics', 'groups', 'list'])).toMatch(/^GROUP\s+STATE\s+MEMBERS\s+PROTOCOL TYPE\ncli-readers\s+Stable\s+1\s+consumer\n$/);
    await expect(runCli(cli, ['topics', 'groups', 'delete', 'cli-readers'])).rejects.toMatchObject({
      code: 'DB_CONFLICT',
      details: { field: 'group', rule: 'group-empty' },
    });
    await expect(runCli(cli, ['topics', 'groups', 'reset-offsets', 'cli-readers', '--topic', 'cli.orders', '--to-earliest'])).rejects.toMatchObject({
      code: 'DB_CONFLICT',
    });
    await consumer.disconnect();

    const reset = (...to: string[]) =>
      json<{ dryRun: boolean; offsets: OffsetReset[] }>(['topics', 'groups', 'reset-offsets', 'cli-readers', '--topic', 'cli.orders', ...to]);
    const committed = async () => {
      const admin = kafka.admin();
      await admin.connect();
      const [t] = await admin.fetchOffsets({ groupId: 'cli-readers', topics: ['cli.orders'] });
      await admin.disconnect();
      return t!.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset);
    };
    expect(await reset('--to-earliest', '--dry-run')).toEqual({
      groupId: 'cli-readers',
      dryRun: true,
      offsets: [
        { topic: 'cli.orders', partition: 0, previous: '5', next: '0' },
        { topic: 'cli.orders', partition: 1, previous: '5', next: '0' },
      ],
    });
    expect(await committed()).toEqual(['5', '5']);
    await reset('--to-earliest');
    expect(await committed()).toEqual(['0', '0']);
    // The 7th record (i = 6, partition 0, offset 3) is the first at or after t0 + 6 s; partition 1 starts at i = 7 (offset 3).
    const times = await reset('--to-datetime', new Date(t0 + 5_500).toISOString());
    expect(times.offsets.map((o) => o.next)).toEqual(['3', '3']);
    expect(await committed()).toEqual(['3', '3']);
    await reset('--to-latest');
    expect(await committed()).toEqual(['5', '5']);
    await expect(runCli(cli, ['topics', 'groups', 'reset-offsets', 'cli-readers', '--topic', 'cli.orders'])).rejects.toMatchObject({
      code: 'DB_VALIDATION',
      details: { field: 'to' },
    });

    const resumed = kafka.consumer({ groupId: 'cli-readers', maxWaitTimeInMs: 100 });
    await resumed.connect();
    await resumed.subscribe({ topic: 'cli.orders' });
    let after = 0;
    await resumed.run({ eachMessage: async () => void after++ });
    await new Promise((r) => setTimeout(r, 1500));
    await resumed.disconnect();
    expect(after).toBe(0); // reset to the end: nothing left to read

    const report = await runCli(cli, ['topics', 'groups', 'describe', 'cli-readers']);
    expect(report).toMatch(
      /^group cli-readers: Empty, 0 members\n\nTOPIC\s+PARTITION\s+COMMITTED\s+HIGH\s+LAG\s+MEMBER\s+HOST\s+CLIENT ID\ncli\.orders\s+0\s+5\s+5\s+0\s+-/,
    );
    expect(await json(['topics', 'groups', 'delete', 'cli-readers'])).toEqual({ groupId: 'cli-readers', deleted: true });
    expect(await json<GroupSummary[]>(['topics', 'groups', 'list'])).toEqual([]);
    await expect(runCli(cli, ['topics', 'groups', 'describe', 'cli-readers'])).rejects.toMatchObject({ code: 'DB_NOT_FOUND', details: { field: 'group' } });
  }, 60_000);
});
