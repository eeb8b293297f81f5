import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { measured } from './cpu-time';

/**
 * The broker benchmark's kafkajs clients: a producer sending batches of 1 KiB values with acks=-1, and a
 * consumer group reading them back. They run in a process of their own (broker-client-process.ts), as outside
 * clients would, so the broker's figure is not also carrying the client's CPU.
 */
export interface ProduceOrder {
  readonly brokers: string[];
  readonly topic: string;
  readonly messages: number;
  readonly valueBytes: number;
  /** Values per kafkajs send. */
  readonly batch: number;
  /** Sends in flight. */
  readonly inFlight: number;
}

export interface ConsumeOrder {
  readonly brokers: string[];
  readonly topic: string;
  readonly messages: number;
}

export interface ClientRun {
  readonly seconds: number;
  readonly bytes: number;
  /** CPU seconds (user + system) the client process spent during the run. */
  readonly cpuSeconds: number;
}

const kafkaFor = (brokers: string[]): Kafka => new Kafka({ clientId: 'bench', brokers, logLevel: logLevel.NOTHING });

async function timed(work: () => Promise<number>): Promise<ClientRun> {
  const { value: bytes, seconds, cpuMicros } = await measured(work);
  return { seconds, bytes, cpuSeconds: cpuMicros / 1e6 };
}

export async function produce(order: ProduceOrder): Promise<ClientRun> {
  const producer = kafkaFor(order.brokers).producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const value = randomBytes(order.valueBytes);
  const { messages, batch } = order;
  const batches = Math.ceil(messages / batch);
  let next = 0;
  const sender = async (): Promise<void> => {
    while (next < batches) {
      const b = next++;
      const count = Math.min(batch, messages - b * batch);
      await producer.send({ topic: order.topic, acks: -1, messages: Array.from({ length: count }, (_, i) => ({ key: `k${(b * batch + i) % 1000}`, value })) });
    }
  };
  const run = await timed(async () => {
    await Promise.all(Array.from({ length: order.inFlight }, sender));
    return messages * order.valueBytes;
  });
  await producer.disconnect();
  return run;
}

export async function consume(order: ConsumeOrder): Promise<ClientRun> {
  const consumer = kafkaFor(order.brokers).consumer({ groupId: 'bench-reader', maxWaitTimeInMs: 100, sessionTimeout: 6000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic: order.topic, fromBeginning: true });
  const run = await timed(
    () =>
      new Promise<number>((resolve) => {
        let seen = 0;
        let bytes = 0;
        void consumer.run({
          autoCommit: true,
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) bytes += m.value?.length ?? 0;
            seen += batch.messages.length;
            if (seen >= order.messages) resolve(bytes);
          },
        });
      }),
  );
  await consumer.disconnect();
  return run;
}
