import { Kafka, logLevel } from 'kafkajs';

export interface RawRecord {
  partition: number;
  offset: number;
  value: string;
}

const client = (brokers: string[]): Kafka =>
  new Kafka({ clientId: 'reliability-raw', brokers, logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } });

/** Every record of a topic up to its current high watermarks, read with a throwaway consumer group. */
export async function readRawTopic(brokers: string[], topic: string, timeoutMs = 60_000): Promise<{ records: RawRecord[]; highWatermarks: number }> {
  const kafka = client(brokers);
  const admin = kafka.admin();
  await admin.connect();
  const highWatermarks = (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
  await admin.disconnect();
  const records: RawRecord[] = [];
  const consumer = kafka.consumer({
    groupId: `reliability-reader-${Date.now()}-${Math.random()}`,
    sessionTimeout: 6000,
    rebalanceTimeout: 3000,
    heartbeatInterval: 300,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => void records.push({ partition, offset: Number(message.offset), value: message.value?.toString() ?? '' }),
    });
    const deadline = Date.now() + timeoutMs;
    while (records.length < highWatermarks) {
      if (Date.now() > deadline) throw new Error(`read ${records.length} of ${highWatermarks} records of ${topic}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Anything past the high watermarks would be a record recovery should have cut.
    await new Promise((resolve) => setTimeout(resolve, 500));
  } finally {
    await consumer.disconnect();
  }
  return { records, highWatermarks };
}

/**
 * Sends `senders` concurrent streams of small string records (acks=all) until `stop()` or the first failure of each
 * stream, and keeps the values the broker acknowledged.
 */
export function startRawSenders(brokers: string[], topic: string, senders: number, batchSize: number): { acknowledged: string[]; stop(): Promise<void> } {
  const acknowledged: string[] = [];
  let stopping = false;
  const kafka = client(brokers);
  const runs = Array.from({ length: senders }, async (_, s) => {
    const producer = kafka.producer({ retry: { retries: 0 } });
    try {
      await producer.connect();
      for (let i = 0; !stopping; i++) {
        const values = Array.from({ length: batchSize }, (_, j) => `s${s}-b${i}-r${j}`);
        await producer.send({ topic, acks: -1, messages: values.map((value) => ({ key: value, value })) });
        acknowledged.push(...values);
      }
    } catch {
      // The broker died mid-send: what was in flight may or may not have been kept.
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  });
  return {
    acknowledged,
    async stop() {
      stopping = true;
      await Promise.all(runs);
    },
  };
}
