import { invalidCompactionConfig } from './compaction-config';

/** Per-topic log settings, named after Kafka's topic configs (see `topicConfigEntries`). */
export interface LogConfig {
  /** `segment.bytes`: a segment rolls when the next batch would take it past this size. */
  segmentBytes: number;
  /** `segment.ms`: a non-empty segment rolls when it is older than this. */
  segmentMs: number;
  /** `retention.ms`: closed segments whose newest batch is older are deleted; -1 keeps forever. */
  retentionMs: number;
  /** `retention.bytes`: oldest closed segments are deleted while the partition is larger; -1: no limit. */
  retentionBytes: number;
  /** `max.message.bytes`: the largest record batch accepted. */
  maxMessageBytes: number;
  /** `index.interval.bytes`: how many bytes of log lie between two entries of a segment's sparse index. */
  indexIntervalBytes: number;
  /** `message.timestamp.type`: keep the producer's timestamps, or stamp each batch with the append time. */
  messageTimestampType: TimestampType;
}

export type TimestampType = 'CreateTime' | 'LogAppendTime';
export const TIMESTAMP_TYPES: readonly TimestampType[] = ['CreateTime', 'LogAppendTime'];

export const DEFAULT_LOG_CONFIG: LogConfig = {
  segmentBytes: 64 * 1024 * 1024,
  segmentMs: 7 * 24 * 3600 * 1000,
  retentionMs: 7 * 24 * 3600 * 1000,
  retentionBytes: -1,
  maxMessageBytes: 1024 * 1024 + 12,
  indexIntervalBytes: 4096,
  messageTimestampType: 'CreateTime',
};

type NumericField = Exclude<keyof LogConfig, 'messageTimestampType'>;

/** Kafka config name ↔ numeric field. Other topic configs are kept and reported but have no effect. */
export const CONFIG_NAMES: Record<string, NumericField> = {
  'segment.bytes': 'segmentBytes',
  'segment.ms': 'segmentMs',
  'retention.ms': 'retentionMs',
  'retention.bytes': 'retentionBytes',
  'max.message.bytes': 'maxMessageBytes',
  'index.interval.bytes': 'indexIntervalBytes',
};

const MAX_INT = 2 ** 31 - 1;

const CLEANUP_POLICIES = new Set(['delete', 'compact', 'compact,delete', 'delete,compact']);

/**
 * Applies string configs from CreateTopics onto defaults; returns the name of the first invalid one.
 * `cleanup.policy=compact` turns time and size retention off unless given explicitly; the log cleaner
 * (log-cleaner.ts) compacts such topics, and `compact,delete` ones, after their own configs (compaction-config.ts).
 */
export function applyTopicConfigs(base: LogConfig, configs: Record<string, string>): { config: LogConfig; invalid?: string } {
  const config = { ...base };
  const policy = configs['cleanup.policy'];
  if (policy !== undefined) {
    if (!CLEANUP_POLICIES.has(policy)) return { config, invalid: 'cleanup.policy' };
    if (policy === 'compact') {
      config.retentionMs = -1;
      config.retentionBytes = -1;
    }
  }
  const invalidCompaction = invalidCompactionConfig(configs);
  if (invalidCompaction) return { config, invalid: invalidCompaction };
  const timestampType = configs['message.timestamp.type'];
  if (timestampType !== undefined) {
    if (!TIMESTAMP_TYPES.includes(timestampType as TimestampType)) return { config, invalid: 'message.timestamp.type' };
    config.messageTimestampType = timestampType as TimestampType;
  }
  for (const [name, value] of Object.entries(configs)) {
    const field = CONFIG_NAMES[name];
    if (!field) continue;
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < -1) return { config, invalid: name };
    // Kafka's segment.bytes is an INT; a segment's index stores positions as 32-bit integers (segment.ts).
    if (field === 'segmentBytes' && n > MAX_INT) return { config, invalid: name };
    if (field === 'indexIntervalBytes' && (n < 0 || n > MAX_INT)) return { config, invalid: name };
    config[field] = n;
  }
  return { config };
}

export function topicConfigEntries(config: LogConfig, explicit: Record<string, string>): { name: string; value: string; isDefault: boolean }[] {
  const entries = Object.entries(CONFIG_NAMES).map(([name, field]) => ({ name, value: String(config[field]), isDefault: !(name in explicit) }));
  entries.push({ name: 'cleanup.policy', value: explicit['cleanup.policy'] ?? 'delete', isDefault: !('cleanup.policy' in explicit) });
  entries.push({ name: 'message.timestamp.type', value: config.messageTimestampType, isDefault: !('message.timestamp.type' in explicit) });
  for (const [name, value] of Object.entries(explicit)) {
    if (!entries.some((e) => e.name === name)) entries.push({ name, value, isDefault: false });
  }
  return entries;
}
