import path from 'node:path';
import type { Config } from '../config';
import type { EngineCredentials } from '../embedded/credentials';
import {
  embeddedKafkaCredentials,
  embeddedRegistryCredentials,
  isLoopback,
  runningKafkaCredentials,
  runningRegistryCredentials,
  usersOf,
} from '../embedded/engine-credentials';
import { reservedResourcesAuthorizer, startEmbeddedKafka, type EmbeddedKafka } from '../embedded/kafka';
import { startEmbeddedRegistry } from '../embedded/registry';
import type { WriteLog } from '../log';
import { openInProcessWriteLog } from '../log/in-process';
import { type KafkaSasl, openKafkaWriteLog, type RegistryAuth } from '../log/kafka';
import { isLastingServiceGroup, ServiceResources } from '../log/topology';
import type { Logger } from '../logger';
import { connectionCapWithin, openFilesLimit } from '../system/open-files-limit';
import { readRunning } from '../system/service-endpoints';
import type { ShutdownSteps } from './shutdown-steps';

/**
 * Who opens an engine: the service owns the embedded engines of its data directory; an operator command (a tool)
 * uses the running service's engines when there is one, and otherwise starts them for its own run.
 */
export type Opener = 'service' | 'tool';

/** How the service reaches the write log: brokers, registry, and its identity on both. */
export interface WriteLogAccess {
  log: WriteLog;
  brokers: string[];
  registryUrl: string;
  /** The service's SASL identity on the brokers (undefined: anonymous, a configured cluster without SASL). */
  sasl: KafkaSasl | undefined;
  registryAuth: RegistryAuth | undefined;
  /** The topics, subjects and groups that are the service's own; learn() entity configurations into it. */
  resources: ServiceResources;
}

/**
 * The write log: a Kafka cluster and schema registry when configured, else the embedded ones. When the broker is
 * the one this process started, the service reaches it in-process (same partition logs, groups and fsync policy,
 * no Kafka client over loopback); everything else (a cluster, or a running service's broker) goes through kafkajs.
 */
/** `max.connections`, lowered to half the process's open-files limit so a flood never starves HTTP of descriptors. */
function kafkaConnectionCap(config: Config, logger: Logger): number {
  const limit = openFilesLimit();
  const cap = connectionCapWithin(config.kafka.maxConnections, limit);
  if (cap < config.kafka.maxConnections)
    logger.warn({ configured: config.kafka.maxConnections, cap, openFilesLimit: limit }, 'the broker accepts at most half the open-files limit in connections');
  return cap;
}

export async function openWriteLog(config: Config, logger: Logger, shutdown: ShutdownSteps, opener: Opener = 'service'): Promise<WriteLogAccess> {
  const running = opener === 'tool' ? readRunning(config.dataDir) : undefined;
  // A tool beside a running service uses its engines; started ones listen on free ports so they never clash.
  const port = (configured: number): number => (opener === 'tool' ? 0 : configured);
  const resources = new ServiceResources();
  let brokers = config.kafka.brokers ?? running?.brokers;
  let embedded: EmbeddedKafka | undefined;
  let sasl = config.kafka.brokers ? configuredSasl(config) : running && serviceSasl(runningKafkaCredentials(config.dataDir));
  if (!brokers) {
    const credentials = embeddedKafkaCredentials(config.dataDir);
    const kafka = await startEmbeddedKafka({
      dataDir: path.join(config.dataDir, 'kafka'),
      host: config.kafka.host,
      port: port(config.kafka.port),
      defaultPartitions: config.kafka.numPartitions,
      saslUsers: usersOf(credentials),
      saslRequired: config.kafka.saslRequired ?? (config.mode === 'production' || !isLoopback(config.kafka.host)),
      authorizer: reservedResourcesAuthorizer({
        owner: credentials.service.username,
        reservedTopic: (topic) => resources.kindOf(topic) !== undefined,
        openForProduce: (topic) => resources.kindOf(topic) === 'deltas',
        undeletable: (topic) => resources.kindOf(topic) === 'persistence',
        reservedGroup: resources.isServiceGroup,
        // The action emitters' transactional ids are named after their groups (`<group>.<instance id>`).
        reservedTransactionalId: resources.isServiceGroup,
      }),
      maxConnections: kafkaConnectionCap(config, logger),
      maxConnectionsPerIp: config.kafka.maxConnectionsPerIp,
      connectionsMaxIdleMs: config.kafka.connectionsMaxIdleMs,
      offsetsRetentionMs: config.kafka.offsetsRetentionMinutes * 60_000,
      retainedGroup: isLastingServiceGroup,
      logger,
    });
    shutdown.add('embedded Kafka broker', () => kafka.stop());
    brokers = kafka.brokers;
    embedded = kafka;
    sasl = serviceSasl(credentials);
  }
  let registryUrl = config.registry.url ?? running?.registryUrl;
  let registryAuth = config.registry.url ? configuredRegistryAuth(config) : running && runningRegistryCredentials(config.dataDir)?.service;
  if (!registryUrl) {
    const credentials = embeddedRegistryCredentials(config.dataDir);
    const access = {
      users: usersOf(credentials),
      owner: credentials.service.username,
      ownedSubject: (subject: string) => resources.kindOfSubject(subject) !== undefined,
    };
    const registry = await startEmbeddedRegistry({ dataDir: path.join(config.dataDir, 'registry'), port: port(config.registry.port), logger, access });
    shutdown.add('embedded schema registry', () => registry.stop());
    registryUrl = registry.url;
    registryAuth = credentials.service;
  }
  const clientId = `deltabroker-${opener}-${config.datacenter}`;
  const log = embedded
    ? await openInProcessWriteLog({ broker: embedded.parts, registryUrl, registryAuth, logger, clientId })
    : // Idempotent on every Kafka-protocol broker: a produce retried after a broker failed mid-request (its answer lost)
      // must not append the same persistence event twice.
      await openKafkaWriteLog({
        brokers,
        registryUrl,
        sasl,
        registryAuth,
        logger,
        clientId,
        idempotent: true,
        sessionTimeoutMs: config.kafka.sessionTimeoutMs,
      });
  shutdown.add('write log', () => log.close());
  return { log, brokers, registryUrl, sasl, registryAuth, resources };
}

const serviceSasl = (credentials: EngineCredentials | undefined): KafkaSasl | undefined =>
  credentials && { mechanism: 'scram-sha-256', username: credentials.service.username, password: credentials.service.password };

function configuredSasl(config: Config): KafkaSasl | undefined {
  const { saslUsername: username, saslPassword: password, saslMechanism: mechanism } = config.kafka;
  return username !== undefined && password !== undefined ? { mechanism, username, password } : undefined;
}

function configuredRegistryAuth(config: Config): RegistryAuth | undefined {
  const basic = config.registry.basicAuth;
  if (basic === undefined) return undefined;
  const colon = basic.indexOf(':');
  return { username: basic.slice(0, colon), password: basic.slice(colon + 1) };
}
