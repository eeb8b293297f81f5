import { ConfigResourceTypes } from 'kafkajs';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { type TestBroker, consumerThatRead, startTestBroker } from './harness';
import { RawClient } from './raw-client';

/** Group and topic administration through kafkajs's admin client (and raw bytes where no client sends the API). */
describe('embedded kafka: group and topic administration', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker({ defaultPartitions: 2 });
  });
  afterAll(() => broker.stop());

  const admin = async () => {
    const a = broker.client('admin', 1).admin();
    await a.connect();
    return a;
  };

  test('list, describe and delete groups; a group with members is refused; deletion survives a restart', async () => {
    const producer = broker.client().producer();
    await producer.connect();
    await producer.send({ topic: 'adm.orders', messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    await producer.disconnect();
    const consumer = await consumerThatRead(broker, 'adm-member', 'adm-group', 'adm.orders', 6);

    let a = await admin();
    expect((await a.listGroups()).groups).toEqual([{ groupId: 'adm-group', protocolType: 'consumer' }]);
    const [described] = (await a.describeGroups(['adm-group', 'adm-never'])).groups;
    expect(described).toMatchObject({ groupId: 'adm-group', state: 'Stable', protocolType: 'consumer', protocol: 'RoundRobinAssigner' });
    expect(described!.members).toEqual([expect.objectContaining({ clientId: 'adm-member', clientHost: expect.stringContaining('127.0.0.1') })]);
    expect(described!.members[0]!.memberAssignment.length).toBeGreaterThan(0);
    expect((await a.describeGroups(['adm-never'])).groups[0]).toMatchObject({ groupId: 'adm-never', state: 'Dead', members: [] });
    await expect(a.deleteGroups(['adm-group'])).rejects.toMatchObject({ groups: [expect.objectContaining({ groupId: 'adm-group', errorCode: 68 })] });

    await consumer.disconnect();
    // The committed offsets alone keep the group listed, Empty.
    expect((await a.describeGroups(['adm-group'])).groups[0]).toMatchObject({ state: 'Empty', members: [] });
    const committed = await a.fetchOffsets({ groupId: 'adm-group', topics: ['adm.orders'] });
    expect(committed[0]!.partitions.reduce((n, p) => n + Number(p.offset), 0)).toBe(6);

    await broker.restart();
    a = await admin();
    expect((await a.listGroups()).groups).toEqual([{ groupId: 'adm-group', protocolType: '' }]); // known from its offsets only
    expect(await a.deleteGroups(['adm-group'])).toEqual([{ groupId: 'adm-group', errorCode: 0 }]);
    await expect(a.deleteGroups(['adm-group'])).rejects.toMatchObject({ groups: [expect.objectContaining({ errorCode: 69 })] });
    await a.disconnect();

    await broker.restart();
    a = await admin();
    expect((await a.listGroups()).groups).toEqual([]);
    const gone = await a.fetchOffsets({ groupId: 'adm-group', topics: ['adm.orders'] });
    expect(gone[0]!.partitions.every((p) => p.offset === '-1')).toBe(true);
    await a.disconnect();
  }, 60_000);

  test('partitions are added to a topic, keeping its records; kept after a restart', async () => {
    const a = await admin();
    await a.createTopics({ topics: [{ topic: 'adm.grow', numPartitions: 1 }] });
    const producer = broker.client().producer();
    await producer.connect();
    await producer.send({ topic: 'adm.grow', messages: [{ value: 'kept' }] });
    await a.createPartitions({ topicPartitions: [{ topic: 'adm.grow', count: 3 }] });
    await expect(a.createPartitions({ topicPartitions: [{ topic: 'adm.grow', count: 2 }] })).rejects.toMatchObject({ type: 'INVALID_PARTITIONS' });
    await expect(a.createPartitions({ topicPartitions: [{ topic: 'adm.missing', count: 2 }] })).rejects.toMatchObject({ type: 'UNKNOWN_TOPIC_OR_PARTITION' });
    await producer.disconnect();
    // A new producer: kafkajs's cached metadata would drop a record for a partition it has not seen.
    const fresh = broker.client().producer();
    await fresh.connect();
    await fresh.send({ topic: 'adm.grow', messages: [{ value: 'new', partition: 2 }] });
    await fresh.disconnect();
    await a.disconnect();

    await broker.restart();
    const b = await admin();
    expect((await b.fetchTopicOffsets('adm.grow')).map((p) => [p.partition, p.high])).toEqual([
      [0, '1'],
      [1, '0'],
      [2, '1'],
    ]);
    await b.disconnect();
  }, 30_000);

  test("AlterConfigs replaces a topic's configs; retention takes effect and is kept after a restart", async () => {
    const a = await admin();
    await a.createTopics({ topics: [{ topic: 'adm.conf', numPartitions: 1, configEntries: [{ name: 'segment.ms', value: '600000' }] }] });
    const describe = async (name = 'adm.conf') => {
      const { resources } = await (await admin()).describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name }] });
      return Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, [e.configValue, e.isDefault]]));
    };
    await a.alterConfigs({
      validateOnly: false,
      resources: [{ type: ConfigResourceTypes.TOPIC, name: 'adm.conf', configEntries: [{ name: 'retention.ms', value: '3600000' }] }],
    });
    const after = await describe();
    expect(after['retention.ms']).toEqual(['3600000', false]);
    expect(after['segment.ms']).toEqual([String(7 * 24 * 3600 * 1000), true]); // left out, so back to its default
    await expect(
      a.alterConfigs({
        validateOnly: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: 'adm.conf', configEntries: [{ name: 'retention.ms', value: 'soon' }] }],
      }),
    ).rejects.toMatchObject({ type: 'INVALID_CONFIG' });
    await a.disconnect();
    await broker.restart();
    expect((await describe())['retention.ms']).toEqual(['3600000', false]);
  }, 30_000);

  test('IncrementalAlterConfigs (raw bytes: no client here sends it) sets, deletes and appends', async () => {
    const a = await admin();
    await a.createTopics({
      topics: [
        {
          topic: 'adm.inc',
          numPartitions: 1,
          configEntries: [
            { name: 'retention.ms', value: '1000' },
            { name: 'segment.ms', value: '2000' },
          ],
        },
      ],
    });
    await a.disconnect();
    const c = await RawClient.connect(broker.kafka.port);
    const alter = async (changes: [string, number, string | null][]) => {
      const body = new Writer()
        .array([0], (w) => {
          w.int8(2).string('adm.inc');
          w.array(changes, (w, [name, op, value]) => w.string(name).int8(op).nullableString(value));
        })
        .bool(false)
        .toBuffer();
      const r = new Reader(await c.request(44, 0, 1, body), 4);
      r.int32();
      return r.array((r) => [r.int16(), r.nullableString()] as const)[0];
    };
    expect(
      await alter([
        ['retention.ms', 0, '5000'],
        ['segment.ms', 1, null],
        ['cleanup.policy', 2, 'compact'],
      ]),
    ).toEqual([0, null]);
    expect(await alter([['retention.ms', 2, '1']])).toEqual([40, 'retention.ms is not a list; APPEND and SUBTRACT apply to lists']);
    c.close();
    const { resources } = await (await admin()).describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'adm.inc' }] });
    const configs = Object.fromEntries(resources[0]!.configEntries.map((e) => [e.configName, [e.configValue, e.isDefault]]));
    expect(configs['retention.ms']).toEqual(['5000', false]);
    expect(configs['segment.ms']).toEqual([String(7 * 24 * 3600 * 1000), true]);
    expect(configs['cleanup.policy']).toEqual(['delete,compact', false]);
  }, 30_000);
});
