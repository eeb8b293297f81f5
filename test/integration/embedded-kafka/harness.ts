import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Consumer, type ConsumerConfig } from 'kafkajs';
import { type EmbeddedKafka, type EmbeddedKafkaOptions, startEmbeddedKafka } from '../../../src/embedded/kafka';

/** A broker on an ephemeral port over a fresh temporary data directory. */
export interface TestBroker {
  kafka: EmbeddedKafka;
  dataDir: string;
  /** A kafkajs client; `retries` low for tests that expect a refusal kafkajs would otherwise retry. */
  client(clientId?: string, retries?: number): Kafka;
  restart(options?: Partial<EmbeddedKafkaOptions>): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestBroker(options: Partial<EmbeddedKafkaOptions> = {}): Promise<TestBroker> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-kafka-'));
  let kafka = await startEmbeddedKafka({ dataDir, port: 0, ...options });
  const tb: TestBroker = {
    get kafka() {
      return kafka;
    },
    dataDir,
    client: (clientId = 'test', retries = 8) =>
      new Kafka({ clientId, brokers: kafka.brokers, logLevel: logLevel.NOTHING, retry: { retries, initialRetryTime: 50 } }),
    async restart(more = {}) {
      const port = kafka.port;
      await kafka.stop();
      kafka = await startEmbeddedKafka({ dataDir, port, ...options, ...more });
    },
    async stop() {
      await kafka.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return tb;
}

/** Consumer settings that keep group tests fast. */
export const FAST_GROUP: Omit<ConsumerConfig, 'groupId'> = {
  sessionTimeout: 6000,
  rebalanceTimeout: 3000,
  heartbeatInterval: 300,
  maxWaitTimeInMs: 200,
  retry: { retries: 8, initialRetryTime: 50 },
};

export async function waitFor(cond: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A consumer of `groupId` (client id `clientId`) that has read all `count` records of `topic`, still running. */
export async function consumerThatRead(broker: TestBroker, clientId: string, groupId: string, topic: string, count: number): Promise<Consumer> {
  const consumer = broker.client(clientId).consumer({ groupId, ...FAST_GROUP });
  let seen = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async () => void seen++ });
  await waitFor(() => seen === count, 20_000, `${groupId} to read ${count} records`);
  return consumer;
}
