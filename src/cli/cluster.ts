/** The Kafka cluster the CLI's log commands talk to, and one admin connection to it per command. */
import type { Config } from '../config';
import { DeltabrokerError } from '../errors';
import type { ClusterAdmin } from '../log';
import { openKafkaLogAdmin } from '../log/kafka';

/** The brokers the CLI talks to: the configured cluster, else the embedded broker a running service listens on. */
export const cliBrokers = (config: Config): string[] => config.kafka.brokers ?? [`127.0.0.1:${config.kafka.port}`];

export async function withClusterAdmin<T>(config: Config, work: (admin: ClusterAdmin) => Promise<T>): Promise<T> {
  const brokers = cliBrokers(config);
  let admin: ClusterAdmin;
  try {
    admin = await openKafkaLogAdmin({ brokers, clientId: 'deltabroker-cli', retries: 1 });
  } catch (cause) {
    const hint = config.kafka.brokers ? 'check DELTABROKER_KAFKA_BROKERS' : 'start the service (npm start), whose embedded broker this is, or set DELTABROKER_KAFKA_BROKERS';
    throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `no Kafka broker answers at ${brokers.join(', ')}: ${hint}`, { field: 'DELTABROKER_KAFKA_BROKERS', stage: 'cli' }, { cause });
  }
  try {
    return await work(admin);
  } finally {
    await admin.close();
  }
}
