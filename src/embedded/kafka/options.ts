import { DeltabrokerError } from '../../errors';
import type { Logger } from '../../logger';
import { silentLogger } from '../../logger';
import { DEFAULT_LOG_CONFIG, type LogConfig, TIMESTAMP_TYPES, type TimestampType } from './storage/log-config';
import type { FsyncPolicy } from './storage/log-manager';
import { ALLOW_ALL, type Authorizer } from './security/authorizer';

export type { FsyncPolicy };

export interface EmbeddedKafkaOptions {
  /** Files go here: topics/<topic>/<partition>/ segment logs, groups/ committed offsets, broker.json. */
  dataDir: string;
  /** Default 9092; 0 picks an ephemeral port. */
  port?: number;
  /** Bind address and the advertised host. Default '127.0.0.1' (librdkafka may resolve localhost to ::1). */
  host?: string;
  /** Address given to clients in Metadata and FindCoordinator, when it differs from the bound one (a proxy, NAT). */
  advertisedHost?: string;
  advertisedPort?: number;
  logger?: Logger;
  /** Create a topic the first time Metadata names it (clients ask before producing). Default true. */
  autoCreateTopics?: boolean;
  /** Partitions of auto-created topics and of CreateTopics asking for the default (-1). Default 3. */
  defaultPartitions?: number;
  /** See FsyncPolicy. Default 'always': an acknowledged record survives power loss. */
  fsync?: FsyncPolicy;
  /** Period of the 'interval' policy. Default 1000. */
  fsyncIntervalMs?: number;
  /** Default `retention.ms` of topics; -1 keeps forever. Default 7 days. */
  retentionMs?: number;
  /** Default `retention.bytes` per partition; -1 for no limit (default). */
  retentionBytes?: number;
  /** Default `segment.bytes`. Default 64 MiB. */
  segmentBytes?: number;
  /** Default `segment.ms`. Default 7 days. */
  segmentMs?: number;
  /** How often retention runs. Default 60 s. */
  retentionCheckIntervalMs?: number;
  /** Largest record batch accepted (`max.message.bytes`). Default 1 MiB + 12. */
  maxMessageBytes?: number;
  /** Default `message.timestamp.type` of topics (`log.message.timestamp.type`). Default 'CreateTime'. */
  messageTimestampType?: TimestampType;
  /** Largest request frame; a bigger one closes the connection (`socket.request.max.bytes`). Default 100 MiB. */
  maxFrameBytes?: number;
  /** Accepted consumer session timeouts. Default 1 s – 30 min. */
  groupMinSessionTimeoutMs?: number;
  groupMaxSessionTimeoutMs?: number;
  /** Wait before an empty group's first rebalance completes (`group.initial.rebalance.delay.ms`). Default 0. */
  groupInitialRebalanceDelayMs?: number;
  /**
   * How long committed offsets of a group without members are kept after the group became empty (Kafka's
   * `offsets.retention.minutes`, here in milliseconds). Default 7 days.
   */
  offsetsRetentionMs?: number;
  /** How often expired offsets are looked for (`offsets.retention.check.interval.ms`). Default 10 min, at most the retention. */
  offsetsRetentionCheckIntervalMs?: number;
  /** Groups whose offsets never expire. Default none. */
  retainedGroup?: (groupId: string) => boolean;
  /** Broker node id reported in Metadata. Default 1. */
  nodeId?: number;
  /** SASL users (name → password) for PLAIN and SCRAM-SHA-256. Without them SaslHandshake offers no mechanism. */
  saslUsers?: Readonly<Record<string, string>>;
  /** Refuse every request but ApiVersions and SASL's own until the connection authenticates. Default false. */
  saslRequired?: boolean;
  /** Who may write to which topic and group. Default: everyone may do everything. */
  authorizer?: Authorizer;
  /** Most open connections (`max.connections`); one beyond is closed at once. Default 1000. */
  maxConnections?: number;
  /** Most open connections from one address (`max.connections.per.ip`). Default 500. */
  maxConnectionsPerIp?: number;
  /** A connection with no traffic for this long is closed (`connections.max.idle.ms`). Default 10 min. */
  connectionsMaxIdleMs?: number;
}

export interface ResolvedOptions {
  dataDir: string;
  port: number;
  host: string;
  advertisedHost: string | undefined;
  advertisedPort: number | undefined;
  logger: Logger;
  autoCreateTopics: boolean;
  defaultPartitions: number;
  fsync: FsyncPolicy;
  fsyncIntervalMs: number;
  retentionCheckIntervalMs: number;
  log: LogConfig;
  maxFrameBytes: number;
  groupMinSessionTimeoutMs: number;
  groupMaxSessionTimeoutMs: number;
  groupInitialRebalanceDelayMs: number;
  offsetsRetentionMs: number;
  offsetsRetentionCheckIntervalMs: number;
  retainedGroup: (groupId: string) => boolean;
  nodeId: number;
  saslUsers: Readonly<Record<string, string>> | undefined;
  saslRequired: boolean;
  authorizer: Authorizer;
  maxConnections: number;
  maxConnectionsPerIp: number;
  connectionsMaxIdleMs: number;
}

const FSYNC_POLICIES: readonly FsyncPolicy[] = ['always', 'interval', 'never'];

export function resolveOptions(o: EmbeddedKafkaOptions): ResolvedOptions {
  if (!o.dataDir)
    throw new DeltabrokerError('DB_VALIDATION', 'embedded kafka: dataDir is required', { stage: 'embedded-kafka', field: 'dataDir', rule: 'required' });
  const fsync = o.fsync ?? 'always';
  if (!FSYNC_POLICIES.includes(fsync))
    throw new DeltabrokerError('DB_VALIDATION', `embedded kafka: fsync must be one of ${FSYNC_POLICIES.join(', ')}`, {
      stage: 'embedded-kafka',
      field: 'fsync',
      rule: 'enum',
    });
  const messageTimestampType = o.messageTimestampType ?? DEFAULT_LOG_CONFIG.messageTimestampType;
  if (!TIMESTAMP_TYPES.includes(messageTimestampType)) {
    throw new DeltabrokerError('DB_VALIDATION', `embedded kafka: messageTimestampType must be one of ${TIMESTAMP_TYPES.join(', ')}`, {
      stage: 'embedded-kafka',
      field: 'messageTimestampType',
      rule: 'enum',
    });
  }
  const defaultPartitions = o.defaultPartitions ?? 3;
  if (o.saslRequired && !o.saslUsers)
    throw new DeltabrokerError('DB_VALIDATION', 'embedded kafka: saslRequired needs saslUsers', {
      stage: 'embedded-kafka',
      field: 'saslUsers',
      rule: 'required',
    });
  const positive = (name: string, value: number): number => {
    if (!Number.isInteger(value) || value < 1)
      throw new DeltabrokerError('DB_VALIDATION', `embedded kafka: ${name} must be a positive integer`, {
        stage: 'embedded-kafka',
        field: name,
        rule: 'positive-integer',
      });
    return value;
  };
  if (!Number.isInteger(defaultPartitions) || defaultPartitions < 1) {
    throw new DeltabrokerError('DB_VALIDATION', 'embedded kafka: defaultPartitions must be ≥ 1', {
      stage: 'embedded-kafka',
      field: 'defaultPartitions',
      rule: 'positive-integer',
    });
  }
  const offsetsRetentionMs = positive('offsetsRetentionMs', o.offsetsRetentionMs ?? 7 * 24 * 60 * 60_000);
  return {
    dataDir: o.dataDir,
    port: o.port ?? 9092,
    host: o.host ?? '127.0.0.1',
    advertisedHost: o.advertisedHost,
    advertisedPort: o.advertisedPort,
    logger: (o.logger ?? silentLogger()).child({ component: 'embedded-kafka' }),
    autoCreateTopics: o.autoCreateTopics ?? true,
    defaultPartitions,
    fsync,
    fsyncIntervalMs: o.fsyncIntervalMs ?? 1000,
    retentionCheckIntervalMs: o.retentionCheckIntervalMs ?? 60_000,
    log: {
      segmentBytes: o.segmentBytes ?? DEFAULT_LOG_CONFIG.segmentBytes,
      segmentMs: o.segmentMs ?? DEFAULT_LOG_CONFIG.segmentMs,
      retentionMs: o.retentionMs ?? DEFAULT_LOG_CONFIG.retentionMs,
      retentionBytes: o.retentionBytes ?? DEFAULT_LOG_CONFIG.retentionBytes,
      maxMessageBytes: o.maxMessageBytes ?? DEFAULT_LOG_CONFIG.maxMessageBytes,
      indexIntervalBytes: DEFAULT_LOG_CONFIG.indexIntervalBytes,
      messageTimestampType,
    },
    maxFrameBytes: o.maxFrameBytes ?? 100 * 1024 * 1024,
    groupMinSessionTimeoutMs: o.groupMinSessionTimeoutMs ?? 1000,
    groupMaxSessionTimeoutMs: o.groupMaxSessionTimeoutMs ?? 30 * 60 * 1000,
    groupInitialRebalanceDelayMs: o.groupInitialRebalanceDelayMs ?? 0,
    offsetsRetentionMs,
    offsetsRetentionCheckIntervalMs: positive(
      'offsetsRetentionCheckIntervalMs',
      o.offsetsRetentionCheckIntervalMs ?? Math.min(10 * 60_000, offsetsRetentionMs),
    ),
    retainedGroup: o.retainedGroup ?? (() => false),
    nodeId: o.nodeId ?? 1,
    saslUsers: o.saslUsers,
    saslRequired: o.saslRequired ?? false,
    authorizer: o.authorizer ?? ALLOW_ALL,
    maxConnections: positive('maxConnections', o.maxConnections ?? 1000),
    maxConnectionsPerIp: positive('maxConnectionsPerIp', o.maxConnectionsPerIp ?? 500),
    connectionsMaxIdleMs: positive('connectionsMaxIdleMs', o.connectionsMaxIdleMs ?? 10 * 60_000),
  };
}
