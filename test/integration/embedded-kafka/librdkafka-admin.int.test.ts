import { execFile } from 'node:child_process';
import { ConfigResourceTypes } from 'kafkajs';
import { type TestBroker, FAST_GROUP, consumerThatRead, startTestBroker, waitFor } from './harness';
import { pythonCannot, runPythonScript } from './python/run-python';

/**
 * librdkafka's admin API, called through ctypes on the system's librdkafka (2.0.2, the library under
 * Debian's kcat): CreateTopics v4 with the broker's defaults, ListGroups v4 with a state filter,
 * DescribeGroups, OffsetDelete, CreatePartitions, AlterConfigs and DeleteGroups, against a broker whose
 * default partition count is 4 (as librdkafka's own test suite expects).
 */
interface AdminRun {
  librdkafka: string;
  createTopics: { name: string; error: string }[];
  listGroups: [string, string][];
  listEmptyGroups: [string, string][];
  describeGroup: { group: string; state: string; assignor: string | null; members: number; error: string }[];
  deleteOffsets: { group: string; error: string; partitions: { topic: string; partition: number; error: string }[] }[];
  createPartitions: { name: string; error: string }[];
  alterConfigs: string[];
  deleteGroups: { group: string; error: string }[];
}

const missing = pythonCannot("import ctypes; ctypes.CDLL('librdkafka.so.1').rd_kafka_ListConsumerGroups");
if (missing)
  console.warn(
    `librdkafka 2.x is not loadable by /usr/bin/python3 (${missing}): skipping the librdkafka admin tests; apt-get install kcat (librdkafka1) to run them`,
  );
const describeLibrdkafka = missing ? describe.skip : describe;

describeLibrdkafka('embedded kafka: librdkafka admin API', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ defaultPartitions: 4 });
  });
  afterAll(() => broker.stop());

  test('topics with broker defaults, LogAppendTime, group administration with a member and without', async () => {
    const bootstrap = broker.kafka.brokers[0]!;
    const producer = broker.client().producer();
    await producer.connect();
    await producer.send({ topic: 'rd.read', messages: Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    const consumer = await consumerThatRead(broker, 'rd-member', 'rd-group', 'rd.read', 8);

    const active = await runPythonScript<AdminRun>('librdkafka_admin.py', [bootstrap, 'rd.created', 'rd-group', 'rd.read']);
    expect(active.librdkafka).toMatch(/^2\./);
    expect(active.createTopics).toEqual([{ name: 'rd.created', error: 'NO_ERROR' }]);
    expect(active.listGroups).toEqual([['rd-group', 'Stable']]);
    expect(active.listEmptyGroups).toEqual([]);
    expect(active.describeGroup).toEqual([{ group: 'rd-group', state: 'Stable', assignor: 'RoundRobinAssigner', members: 1, error: 'NO_ERROR' }]);
    expect(active.deleteOffsets).toEqual([
      { group: 'rd-group', error: 'NO_ERROR', partitions: [{ topic: 'rd.read', partition: 0, error: 'GROUP_SUBSCRIBED_TO_TOPIC' }] },
    ]);
    expect(active.createPartitions).toEqual([{ name: 'rd.created', error: 'NO_ERROR' }]);
    expect(active.alterConfigs).toEqual(['NO_ERROR']);
    expect(active.deleteGroups).toEqual([{ group: 'rd-group', error: 'NON_EMPTY_GROUP', partitions: [] }]);

    await consumer.disconnect();
    const admin = broker.client().admin();
    await admin.connect();
    const committedBefore = await admin.fetchOffsets({ groupId: 'rd-group', topics: ['rd.read'] });
    expect(committedBefore[0]!.partitions.find((p) => p.partition === 0)!.offset).not.toBe('-1');

    const empty = await runPythonScript<AdminRun>('librdkafka_admin.py', [bootstrap, 'rd.created.2', 'rd-group', 'rd.read']);
    expect(empty.listGroups).toEqual([['rd-group', 'Empty']]);
    expect(empty.listEmptyGroups).toEqual([['rd-group', 'Empty']]);
    expect(empty.describeGroup).toEqual([{ group: 'rd-group', state: 'Empty', assignor: null, members: 0, error: 'NO_ERROR' }]);
    expect(empty.deleteOffsets).toEqual([{ group: 'rd-group', error: 'NO_ERROR', partitions: [{ topic: 'rd.read', partition: 0, error: 'NO_ERROR' }] }]);
    expect(empty.deleteGroups).toEqual([{ group: 'rd-group', error: 'NO_ERROR', partitions: [] }]);
    expect((await admin.listGroups()).groups).toEqual([]);

    // What librdkafka asked for is what the broker did: 4 partitions by default, then 5; the configs it set.
    const meta = await admin.fetchTopicMetadata({ topics: ['rd.created', 'rd.created.2'] });
    expect(meta.topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
      ['rd.created', 5],
      ['rd.created.2', 5],
    ]);
    const configs = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'rd.created', configNames: ['retention.ms', 'message.timestamp.type'] }],
    });
    expect(Object.fromEntries(configs.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]))).toEqual({
      'retention.ms': '7200000',
      'message.timestamp.type': 'LogAppendTime',
    });

    // LogAppendTime: the produce answer carries the broker's time, and readers see it, not the producer's.
    const before = Date.now();
    const [sent] = await producer.send({ topic: 'rd.created', messages: [{ key: 'k', value: 'stamped', partition: 0, timestamp: '1000' }] });
    const appendTime = Number(sent!.logAppendTime);
    expect(appendTime).toBeGreaterThanOrEqual(before);
    const reader = broker.client('stamp-reader').consumer({ groupId: 'stamp-reader', ...FAST_GROUP });
    let timestamp = '';
    await reader.connect();
    await reader.subscribe({ topic: 'rd.created', fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void (timestamp = message.timestamp) });
    await waitFor(() => timestamp !== '', 20_000, 'the stamped record');
    await reader.disconnect();
    expect(Number(timestamp)).toBe(appendTime);
    await producer.disconnect();
    await admin.disconnect();
  }, 120_000);

  test('a topic auto-created by librdkafka (kcat) gets the configured default partition count', async () => {
    // Asynchronously: the broker answering kcat runs in this process.
    await new Promise<void>((resolve, reject) => {
      const kcat = execFile('/usr/bin/kcat', ['-b', broker.kafka.brokers[0]!, '-P', '-t', 'rd.auto'], { timeout: 20_000 }, (err: Error | null) =>
        err ? reject(err) : resolve(),
      );
      kcat.stdin!.end('one\n');
    });
    const admin = broker.client().admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ['rd.auto'] });
    await admin.disconnect();
    expect(meta.topics[0]!.partitions).toHaveLength(4);
  }, 30_000);
});
