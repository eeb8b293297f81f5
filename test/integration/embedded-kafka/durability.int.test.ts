import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
import { killBroker, spawnBroker } from './fixtures/spawn-broker';
import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';

const client = (port: number): Kafka =>
  new Kafka({ clientId: 'durability', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 50 } });

async function readAll(kafka: Kafka, topic: string, expected: number): Promise<{ partition: number; offset: number; value: string }[]> {
  const consumer = kafka.consumer({ groupId: `reader-${Math.random()}`, ...FAST_GROUP });
  const got: { partition: number; offset: number; value: string }[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => void got.push({ partition, offset: Number(message.offset), value: message.value!.toString() }),
  });
  await waitFor(() => got.length >= expected, 20_000, `${expected} records`);
  await new Promise((r) => setTimeout(r, 300));
  await consumer.disconnect();
  return got;
}

describe('embedded kafka: durability', () => {
  test('a clean restart keeps every record and offsets continue', async () => {
    const broker: TestBroker = await startTestBroker();
    try {
      let producer = broker.client().producer();
      await producer.connect();
      for (let i = 0; i < 10; i++)
        await producer.send({ topic: 'kept', messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${j}`, value: `a${i * 10 + j}` })) });
      await producer.disconnect();
      await broker.restart();
      producer = broker.client().producer();
      await producer.connect();
      await producer.send({ topic: 'kept', messages: Array.from({ length: 10 }, (_, j) => ({ key: `k${j}`, value: `b${j}` })) });
      await producer.disconnect();
      const got = await readAll(broker.client(), 'kept', 110);
      expect(got).toHaveLength(110);
      for (const p of new Set(got.map((g) => g.partition))) {
        const offsets = got.filter((g) => g.partition === p).map((g) => g.offset);
        expect(offsets).toEqual(offsets.map((_, i) => i));
      }
    } finally {
      await broker.stop();
    }
  });

  test('a killed broker process keeps every acknowledged record; a torn tail is cut on restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-kafka-kill-'));
    const first = await spawnBroker(dataDir);
    const acked: string[] = [];
    try {
      const producer = client(first.port).producer({ idempotent: true });
      await producer.connect();
      let n = 0;
      const sendOne = async (): Promise<void> => {
        const values = Array.from({ length: 5 }, () => `r${n++}`);
        await producer.send({ topic: 'survivors', acks: -1, messages: values.map((value) => ({ key: value, value })) });
        acked.push(...values);
      };
      for (let i = 0; i < 40; i++) await sendOne();
      // Some sends are in flight when the process dies: those may or may not be kept.
      const inFlight = Array.from({ length: 10 }, () => sendOne().catch(() => undefined));
      await new Promise((r) => setTimeout(r, 5));
      await killBroker(first.child);
      await Promise.all(inFlight);
      await producer.disconnect().catch(() => undefined);
    } finally {
      await killBroker(first.child);
    }

    // Simulate a write torn by a crash: half a batch header at the end of partition 0's active segment.
    const partitionDir = path.join(dataDir, 'topics', 'survivors', '0');
    const segment = fs
      .readdirSync(partitionDir)
      .filter((f) => f.endsWith('.log'))
      .sort()
      .pop()!;
    const logFile = path.join(partitionDir, segment);
    const sizeBefore = fs.statSync(logFile).size;
    fs.appendFileSync(logFile, Buffer.from([0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 200, 1, 2, 3]));

    const second = await startEmbeddedKafka({ dataDir, port: 0 });
    try {
      expect(fs.statSync(logFile).size).toBe(sizeBefore);
      const kafka = client(second.port);
      const admin = kafka.admin();
      await admin.connect();
      const total = (await admin.fetchTopicOffsets('survivors')).reduce((s, o) => s + Number(o.high), 0);
      await admin.disconnect();
      const got = await readAll(kafka, 'survivors', total);
      const values = new Set(got.map((g) => g.value));
      for (const v of acked) expect(values.has(v)).toBe(true);
      expect(got.length).toBe(values.size);
      // The log takes new writes after recovery.
      const producer = kafka.producer();
      await producer.connect();
      const [meta] = await producer.send({ topic: 'survivors', messages: [{ value: 'after' }], acks: -1 });
      expect(Number(meta!.baseOffset)).toBeGreaterThanOrEqual(0);
      await producer.disconnect();
    } finally {
      await second.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
