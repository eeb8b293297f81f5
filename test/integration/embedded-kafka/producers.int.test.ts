import { CompressionTypes, Kafka, logLevel } from 'kafkajs';
import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';
import { FaultProxy } from './fault-proxy';

const PRODUCE = 0;

describe('embedded kafka: producers', () => {
  let broker: TestBroker;
  afterEach(() => broker?.stop());

  test('an idempotent producer retrying a produce whose answer was lost does not duplicate it', async () => {
    // Clients reach the broker only through the proxy: the broker advertises the proxy's port.
    const proxy = new FaultProxy({ host: '127.0.0.1', port: 0 });
    const proxyPort = await proxy.listen();
    broker = await startTestBroker({ advertisedPort: proxyPort });
    proxy.target = { host: broker.kafka.host, port: broker.kafka.port };
    try {
      const kafka = new Kafka({
        clientId: 'idem',
        brokers: [`127.0.0.1:${proxyPort}`],
        logLevel: logLevel.NOTHING,
        retry: { retries: 5, initialRetryTime: 50 },
      });
      const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      await producer.send({ topic: 'once', messages: [{ key: 'k', value: 'first' }] });
      proxy.dropResponseOf(PRODUCE, 2);
      const [meta] = await producer.send({ topic: 'once', messages: [{ key: 'k', value: 'second' }] });
      await producer.send({ topic: 'once', messages: [{ key: 'k', value: 'third' }] });
      await producer.disconnect();

      const admin = kafka.admin();
      await admin.connect();
      const offsets = await admin.fetchTopicOffsets('once');
      await admin.disconnect();
      const partition = offsets.find((o) => o.high !== '0')!;
      expect(partition.high).toBe('3');
      expect(meta!.baseOffset).toBe('1');

      const consumer = kafka.consumer({ groupId: 'once-reader', ...FAST_GROUP });
      const values: string[] = [];
      await consumer.connect();
      await consumer.subscribe({ topic: 'once', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) });
      await waitFor(() => values.length >= 3, 20_000, 'three records');
      await consumer.disconnect();
      expect(values).toEqual(['first', 'second', 'third']);
    } finally {
      await proxy.close();
    }
  });

  test('gzip-compressed batches round-trip', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('gzip');
    const producer = kafka.producer();
    await producer.connect();
    const sent = Array.from({ length: 100 }, (_, i) => ({ key: `k${i}`, value: `value ${i} `.repeat(20), headers: { n: String(i) } }));
    await producer.send({ topic: 'zipped', compression: CompressionTypes.GZIP, messages: sent });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: 'gz', ...FAST_GROUP });
    const got: { key: string; value: string; n: string }[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic: 'zipped', fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => void got.push({ key: message.key!.toString(), value: message.value!.toString(), n: message.headers!.n!.toString() }),
    });
    await waitFor(() => got.length >= 100, 20_000, '100 records');
    await consumer.disconnect();
    expect(got.sort((a, b) => Number(a.n) - Number(b.n))).toEqual(sent.map((s) => ({ key: s.key, value: s.value, n: s.headers.n })));
  });
});
