/** Topic creation on any Kafka-protocol broker: idempotent, waits for partition leaders. */
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { TopicSpec } from '../port';
import { type KafkaSasl, saslConfig } from './client-security';

/** Creates the topics that do not exist yet and answers the names it created. */
export async function createTopics(admin: Admin, specs: readonly TopicSpec[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length === 0) return [];
  await admin.createTopics({
    waitForLeaders: true,
    topics: missing.map((s) => ({
      topic: s.topic,
      numPartitions: s.partitions ?? 1,
      ...(s.replicationFactor !== undefined ? { replicationFactor: s.replicationFactor } : {}),
      ...(s.config ? { configEntries: Object.entries(s.config).map(([name, value]) => ({ name, value })) } : {}),
    })),
  });
  return missing.map((s) => s.topic);
}

/** Standalone helper (CLI, tests, scripts): connects to `brokers`, creates the missing topics, disconnects. */
export async function ensureTopics(brokers: readonly string[], specs: readonly TopicSpec[], sasl?: KafkaSasl): Promise<string[]> {
  const admin = new Kafka({ clientId: 'deltabroker-topics', brokers: [...brokers], ...saslConfig(sasl), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return await createTopics(admin, specs);
  } finally {
    await admin.disconnect();
  }
}
