/**
 * The write-log contract against real Apache Kafka and Confluent Schema Registry in containers
 * (testcontainers). Runs where a Docker engine answers; elsewhere it is skipped, saying why.
 */
import { describeWriteLogContract, type Backend } from './write-log-contract';
import { dockerAnswers } from '../../support/docker';

const KAFKA_IMAGE = process.env.DELTABROKER_KAFKA_IMAGE ?? 'confluentinc/cp-kafka:7.7.1';
const REGISTRY_IMAGE = process.env.DELTABROKER_REGISTRY_IMAGE ?? 'confluentinc/cp-schema-registry:7.7.1';

const docker = dockerAnswers();

if (!docker.ok) {
  // Visible in every run's output, not only as a skipped count.
  console.warn(
    `SKIPPED kafka-containers suite: ${docker.why}. It runs the write-log contract against ${KAFKA_IMAGE} + ${REGISTRY_IMAGE} where Docker is available.`,
  );
  describe.skip(`write-log contract: Kafka + Confluent Schema Registry in containers (skipped: ${docker.why})`, () => {
    test('needs a Docker engine', () => undefined);
  });
} else {
  jest.setTimeout(180_000);
  describeWriteLogContract('Kafka + Confluent Schema Registry (testcontainers)', startContainers);
}

async function startContainers(): Promise<Backend> {
  const { GenericContainer, Network, Wait } = await import('testcontainers');
  const network = await new Network().start();
  // KRaft single node; an internal listener for the registry, and an external one mapped to a fixed host
  // port so that the advertised address is right for clients on the host.
  const hostPort = 29092 + Math.floor(Math.random() * 1000);
  const kafka = await new GenericContainer(KAFKA_IMAGE)
    .withNetwork(network)
    .withNetworkAliases('kafka')
    .withExposedPorts({ container: 9094, host: hostPort })
    .withEnvironment({
      CLUSTER_ID: 'MkU3OEVBNTcwNTJENDM2Qk',
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:9093',
      KAFKA_LISTENERS: 'INTERNAL://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093,EXTERNAL://0.0.0.0:9094',
      KAFKA_ADVERTISED_LISTENERS: `INTERNAL://kafka:9092,EXTERNAL://127.0.0.1:${hostPort}`,
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,EXTERNAL:PLAINTEXT',
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_INTER_BROKER_LISTENER_NAME: 'INTERNAL',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
    })
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .start();
  const registry = await new GenericContainer(REGISTRY_IMAGE)
    .withNetwork(network)
    .withExposedPorts(8081)
    .withEnvironment({
      SCHEMA_REGISTRY_HOST_NAME: 'schema-registry',
      SCHEMA_REGISTRY_LISTENERS: 'http://0.0.0.0:8081',
      SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS: 'PLAINTEXT://kafka:9092',
    })
    .withWaitStrategy(Wait.forHttp('/subjects', 8081).forStatusCode(200))
    .start();
  return {
    brokers: [`127.0.0.1:${hostPort}`],
    registryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8081)}`,
    stop: async () => {
      await registry.stop();
      await kafka.stop();
      await network.stop();
    },
  };
}
