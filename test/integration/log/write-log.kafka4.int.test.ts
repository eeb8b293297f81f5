/**
 * The write-log contract with the kafkajs adapter against Apache Kafka 4 (a KRaft cluster of three, replication
 * factor 3, min.insync.replicas 2) and Apicurio Registry through its Confluent API: the engines global setup
 * started from Maven jars (test/support/engines.ts).
 */
import { describeWithEngines } from '../../support/engines';
import { describeTransactionsContract } from './transactions-contract';
import { describeWriteLogContract } from './write-log-contract';

jest.setTimeout(120_000);

describeWithEngines(['kafka', 'registry'], 'write log on Kafka 4 and Apicurio Registry', (engines) => {
  const backend = async () => ({ brokers: engines.kafka?.brokers ?? [], registryUrl: engines.registry?.url ?? '', stop: async () => undefined });
  describeWriteLogContract(`Kafka ${engines.kafka?.nodes.length}-node cluster + Apicurio Registry`, backend);
  describeTransactionsContract(`Kafka ${engines.kafka?.nodes.length}-node cluster + Apicurio Registry`, backend);
});
