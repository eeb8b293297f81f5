import { ConfigResourceTypes } from 'kafkajs';
import fs from 'node:fs';
import path from 'node:path';
import { type TestBroker, startTestBroker } from './harness';

describe('embedded kafka: admin', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ defaultPartitions: 2 });
  });
  afterAll(() => broker.stop());

  test('create, list, describe and delete topics', async () => {
    const admin = broker.client('admin', 1).admin();
    await admin.connect();
    try {
      expect(
        await admin.createTopics({
          topics: [
            { topic: 'alpha', numPartitions: 5, configEntries: [{ name: 'retention.ms', value: '60000' }] },
            { topic: 'beta' }, // broker defaults
          ],
        }),
      ).toBe(true);
      expect(await admin.createTopics({ topics: [{ topic: 'alpha' }] })).toBe(false); // already there
      await expect(admin.createTopics({ topics: [{ topic: 'gamma', replicationFactor: 3 }] })).rejects.toMatchObject({
        errors: [expect.objectContaining({ topic: 'gamma', type: 'INVALID_REPLICATION_FACTOR' })],
      });
      await expect(admin.createTopics({ topics: [{ topic: 'bad/name' }] })).rejects.toMatchObject({
        errors: [expect.objectContaining({ type: 'INVALID_TOPIC_EXCEPTION' })],
      });
      expect((await admin.listTopics()).sort()).toEqual(['alpha', 'beta']);

      const meta = await admin.fetchTopicMetadata({ topics: ['alpha', 'beta'] });
      expect(meta.topics.find((t) => t.name === 'alpha')!.partitions).toHaveLength(5);
      expect(meta.topics.find((t) => t.name === 'beta')!.partitions).toHaveLength(2);

      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: 'alpha', configNames: ['retention.ms', 'cleanup.policy'] }],
      });
      const entries = described.resources[0]!.configEntries;
      expect(entries.find((e) => e.configName === 'retention.ms')!.configValue).toBe('60000');
      expect(entries.find((e) => e.configName === 'cleanup.policy')!.configValue).toBe('delete');

      const producer = broker.client().producer();
      await producer.connect();
      await producer.send({ topic: 'alpha', messages: [{ value: 'x' }] });
      await producer.disconnect();

      await admin.deleteTopics({ topics: ['alpha'] });
      expect(await admin.listTopics()).toEqual(['beta']);
      expect(fs.existsSync(path.join(broker.dataDir, 'topics', 'alpha'))).toBe(false);
      await expect(admin.deleteTopics({ topics: ['nope'] })).rejects.toThrow();

      // A deleted topic can be created again, empty.
      await admin.createTopics({ topics: [{ topic: 'alpha', numPartitions: 1 }] });
      const offsets = await admin.fetchTopicOffsets('alpha');
      expect(offsets).toEqual([expect.objectContaining({ partition: 0, high: '0', low: '0' })]);
    } finally {
      await admin.disconnect();
    }
  });

  test('topics are auto-created on first use with the default partition count', async () => {
    const producer = broker.client().producer();
    await producer.connect();
    await producer.send({ topic: 'auto-made', messages: [{ value: 'hello' }] });
    await producer.disconnect();
    const admin = broker.client().admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ['auto-made'] });
    expect(meta.topics[0]!.partitions).toHaveLength(2);
    await admin.disconnect();
  });

  test('offsets by timestamp, earliest and latest', async () => {
    const kafka = broker.client();
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'timed', numPartitions: 1 }] });
    const producer = kafka.producer();
    await producer.connect();
    const t0 = Date.now() - 60_000;
    for (let i = 0; i < 5; i++) await producer.send({ topic: 'timed', messages: [{ value: `m${i}`, timestamp: String(t0 + i * 1000) }] });
    await producer.disconnect();
    expect(await admin.fetchTopicOffsetsByTimestamp('timed', t0 + 2500)).toEqual([{ partition: 0, offset: '3' }]);
    expect(await admin.fetchTopicOffsetsByTimestamp('timed', t0)).toEqual([{ partition: 0, offset: '0' }]);
    expect(await admin.fetchTopicOffsets('timed')).toEqual([{ partition: 0, offset: '5', high: '5', low: '0' }]);
    await admin.disconnect();
  });

  test('with auto-create off, an unknown topic is refused', async () => {
    const off = await startTestBroker({ autoCreateTopics: false });
    try {
      const producer = off.client('test', 1).producer();
      await producer.connect();
      await expect(producer.send({ topic: 'missing', messages: [{ value: 'x' }] })).rejects.toThrow();
      await producer.disconnect();
    } finally {
      await off.stop();
    }
  });
});
