/** The write-log contract against the embedded Kafka-protocol broker and the embedded schema registry. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
import { createTopics } from '../../../src/log/kafka';
import { startEmbeddedRegistry } from '../../../src/embedded/registry';
import { describeTransactionsContract } from './transactions-contract';
import { describeWriteLogContract, type Backend } from './write-log-contract';

async function startEmbedded(): Promise<Backend> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'write-log-embedded-'));
  const kafka = await startEmbeddedKafka({ dataDir: path.join(dataDir, 'kafka'), port: 0, autoCreateTopics: false });
  const registry = await startEmbeddedRegistry({ dataDir: path.join(dataDir, 'registry'), port: 0 });
  return {
    brokers: kafka.brokers,
    registryUrl: registry.url,
    stop: async () => {
      await registry.stop();
      await kafka.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describeWriteLogContract('embedded broker + embedded registry', startEmbedded);
describeTransactionsContract('embedded broker + embedded registry', startEmbedded);

describe('topic creation through a broker whose metadata trails the controller', () => {
  test('topics the listing missed but the controller has are not answered as created, and a mix creates the rest', async () => {
    const backend = await startEmbedded();
    const kafka = new Kafka({ clientId: 'topics-test', brokers: [...backend.brokers], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      expect(await createTopics(admin, [{ topic: 'listed-late', partitions: 2 }])).toEqual(['listed-late']);
      // The listing of a broker that has not heard of the topic yet.
      const trailing = Object.assign(Object.create(admin) as Admin, { listTopics: () => Promise.resolve([]) });
      expect(await createTopics(trailing, [{ topic: 'listed-late', partitions: 2 }])).toEqual([]);
      expect(await createTopics(trailing, [{ topic: 'listed-late' }, { topic: 'brand-new', partitions: 2 }])).toEqual(['brand-new']);
      expect((await admin.fetchTopicMetadata({ topics: ['brand-new'] })).topics[0]?.partitions).toHaveLength(2);
    } finally {
      await admin.disconnect();
      await backend.stop();
    }
  });
});
