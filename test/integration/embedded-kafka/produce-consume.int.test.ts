import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';

describe('embedded kafka: produce and consume with kafkajs', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(() => broker.stop());

  test('records produced across partitions are consumed once each, in order per partition', async () => {
    const kafka = broker.client();
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'orders', numPartitions: 4 }] });
    const producer = kafka.producer();
    await producer.connect();
    const sent = Array.from({ length: 200 }, (_, i) => ({ key: `k${i % 17}`, value: `v${i}` }));
    for (let i = 0; i < sent.length; i += 25) await producer.send({ topic: 'orders', messages: sent.slice(i, i + 25) });
    const offsets = await admin.fetchTopicOffsets('orders');
    expect(offsets.reduce((n, o) => n + Number(o.high), 0)).toBe(200);
    expect(offsets.filter((o) => Number(o.high) > 0).length).toBeGreaterThan(1);

    const consumer = kafka.consumer({ groupId: 'pc', ...FAST_GROUP });
    await consumer.connect();
    await consumer.subscribe({ topic: 'orders', fromBeginning: true });
    const got: { partition: number; offset: number; key: string; value: string }[] = [];
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        got.push({ partition, offset: Number(message.offset), key: message.key!.toString(), value: message.value!.toString() });
      },
    });
    await waitFor(() => got.length >= 200, 20_000, '200 records');
    await consumer.disconnect();
    await producer.disconnect();
    await admin.disconnect();

    expect(got.map((g) => g.value).sort()).toEqual(sent.map((s) => s.value).sort());
    for (const p of new Set(got.map((g) => g.partition))) {
      const inPartition = got.filter((g) => g.partition === p);
      expect(inPartition.map((g) => g.offset)).toEqual(inPartition.map((_, i) => i));
      // Same key, same partition.
      for (const g of inPartition) expect(got.filter((x) => x.key === g.key).every((x) => x.partition === p)).toBe(true);
    }
  });
});
