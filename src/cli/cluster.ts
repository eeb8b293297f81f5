/** The Kafka cluster the CLI's log commands talk to, and one admin connection to it per command. */
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import type { ClusterAdmin } from '../log';
import { type KafkaSasl, openKafkaLogAdmin } from '../log/kafka';
import { runningKafkaCredentials } from '../embedded/engine-credentials';
import { readRunning } from '../system/service-endpoints';

/**
 * The brokers the CLI talks to: the configured cluster, else the embedded broker of the service running on the
 * data directory (data/service.json), else the configured embedded port.
 */
export const cliBrokers = (config: Config): string[] => config.kafka.brokers ?? readRunning(config.dataDir)?.brokers ?? [`127.0.0.1:${config.kafka.port}`];

/**
 * The CLI's SASL identity: the configured one for a configured cluster, else the service's own from the data
 * directory's credentials (the CLI is an operator's tool on the service's machine).
 */
export function cliSasl(config: Config): KafkaSasl | undefined {
  if (config.kafka.brokers) {
    const { saslUsername: username, saslPassword: password, saslMechanism: mechanism } = config.kafka;
    return username !== undefined && password !== undefined ? { mechanism, username, password } : undefined;
  }
  const service = runningKafkaCredentials(config.dataDir)?.service;
  return service && { mechanism: 'scram-sha-256', username: service.username, password: service.password };
}

/** The schema registry the CLI talks to, found the same way as its brokers. */
export const cliRegistryUrl = (config: Config): string =>
  config.registry.url ?? readRunning(config.dataDir)?.registryUrl ?? `http://127.0.0.1:${config.registry.port}`;

export async function withClusterAdmin<T>(config: Config, work: (admin: ClusterAdmin) => Promise<T>): Promise<T> {
  const brokers = cliBrokers(config);
  let admin: ClusterAdmin;
  try {
    admin = await openKafkaLogAdmin({ brokers, sasl: cliSasl(config), clientId: 'deltabroker-cli', retries: 1 });
  } catch (cause) {
    const hint = config.kafka.brokers
      ? 'check DELTABROKER_KAFKA_BROKERS'
      : 'start the service (npm start), whose embedded broker this is, or set DELTABROKER_KAFKA_BROKERS';
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `no Kafka broker answers at ${brokers.join(', ')}: ${hint}`,
      { field: 'DELTABROKER_KAFKA_BROKERS', stage: 'cli' },
      { cause },
    );
  }
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}
