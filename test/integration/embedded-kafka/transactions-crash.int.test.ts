import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { FAST_GROUP, waitFor } from './harness';
import { killBroker, spawnBroker } from './fixtures/spawn-broker';

const client = (port: number): Kafka =>
  new Kafka({ clientId: 'txn-crash', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 50 } });

/** The values of `topic` a reader of that isolation sees, once at least `atLeast` came and no more arrive. */
async function values(kafka: Kafka, topic: string, readUncommitted: boolean, atLeast: number): Promise<Set<string>> {
  const consumer = kafka.consumer({ groupId: `reader-${Math.random()}`, readUncommitted, ...FAST_GROUP });
  const got: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value!.toString()) });
  await waitFor(() => got.length >= atLeast, 20_000, `${atLeast} records of ${topic}`);
  await new Promise((r) => setTimeout(r, 1000));
  await consumer.disconnect();
  return new Set(got);
}

describe('embedded kafka: transactions across a broker crash', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-kafka-txn-kill-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  test('killed while transactions commit and one is open: after restart each is on both topics or on neither', async () => {
    const first = await spawnBroker(dataDir);
    const acked: string[] = [];
    let stop = false;
    try {
      const kafka = client(first.port);
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: ['left', 'right'].map((topic) => ({ topic, numPartitions: 2 })) });
      await admin.disconnect();

      const open = kafka.producer({ transactionalId: 'crash-open', idempotent: true, maxInFlightRequests: 1 });
      await open.connect();
      const pending = await open.transaction();
      await pending.send({ topic: 'left', messages: [{ key: 'o', value: 'open' }] });
      await pending.send({ topic: 'right', messages: [{ key: 'o', value: 'open' }] });

      const producer = kafka.producer({ transactionalId: 'crash-loop', idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      const loop = (async () => {
        for (let i = 0; !stop; i++) {
          const txn = await producer.transaction();
          const value = `t${i}`;
          await txn.send({ topic: 'left', messages: [{ key: value, value }] });
          await txn.send({ topic: 'right', messages: [{ key: value, value }] });
          await txn.commit();
          acked.push(value);
        }
      })().catch(() => undefined);
      await waitFor(() => acked.length >= 20, 30_000, '20 committed transactions');
      await killBroker(first.child);
      stop = true;
      await loop;
      await Promise.all([producer.disconnect(), open.disconnect()]).catch(() => undefined);
    } finally {
      await killBroker(first.child);
    }

    const second = await spawnBroker(dataDir);
    try {
      const kafka = client(second.port);
      const left = await values(kafka, 'left', false, acked.length);
      const right = await values(kafka, 'right', false, acked.length);
      expect([...left].sort()).toEqual([...right].sort());
      for (const value of acked) expect(left.has(value)).toBe(true);
      expect(left.has('open')).toBe(false);
      // The open transaction's records are stored, and aborted: read_uncommitted readers still see them.
      expect((await values(kafka, 'left', true, left.size + 1)).has('open')).toBe(true);

      // The transactional id carries on after the restart.
      const again = kafka.producer({ transactionalId: 'crash-open', idempotent: true, maxInFlightRequests: 1 });
      await again.connect();
      const txn = await again.transaction();
      await txn.send({ topic: 'right', messages: [{ key: 'a', value: 'after' }] });
      await txn.commit();
      await again.disconnect();
      expect((await values(kafka, 'right', false, right.size + 1)).has('after')).toBe(true);
    } finally {
      await killBroker(second.child);
    }
  }, 120_000);
});
