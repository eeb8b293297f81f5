/** The write-log contract against the embedded Kafka-protocol broker and the embedded schema registry. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
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
