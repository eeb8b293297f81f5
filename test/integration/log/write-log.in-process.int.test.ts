/**
 * The write-log contract against the in-process adapter: the embedded broker's partition logs and group
 * coordinator used directly, the embedded registry over HTTP. Raw kafkajs clients still reach the broker over
 * the Kafka protocol (poison records), as external producers do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry } from '../../../src/embedded/registry';
import { openInProcessWriteLog } from '../../../src/log/in-process';
import { describeTransactionsContract } from './transactions-contract';
import { describeWriteLogContract, type Backend } from './write-log-contract';

async function startInProcess(): Promise<Backend> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'write-log-in-process-'));
  const kafka = await startEmbeddedKafka({ dataDir: path.join(dataDir, 'kafka'), port: 0, autoCreateTopics: false });
  const registry = await startEmbeddedRegistry({ dataDir: path.join(dataDir, 'registry'), port: 0 });
  return {
    brokers: kafka.brokers,
    registryUrl: registry.url,
    openLog: ({ rejectionsTopic }) => openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url, rejectionsTopic }),
    stop: async () => {
      await registry.stop();
      await kafka.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describeWriteLogContract('in-process adapter on the embedded broker', startInProcess);
describeTransactionsContract('in-process adapter on the embedded broker', startInProcess);
