/** Topic creation on any Kafka-protocol broker: idempotent, waits for partition leaders. */
import { logLevel, type Admin } from 'kafkajs';
import { kafkaClient } from './kafka-client';
import { DeltabrokerError } from '../../errors';
import type { TopicSpec } from '../port';
import { type KafkaSasl, saslConfig } from './client-security';

/** Creates the topics that do not exist yet and answers the names it created. */
export async function createTopics(admin: Admin, specs: readonly TopicSpec[]): Promise<string[]> {
  if (specs.length === 0) return [];
  const existing = new Set(await admin.listTopics());
  const missing = specs.filter((s) => !existing.has(s.topic));
  if (missing.length === 0) return [];
  const created = await Promise.all(missing.map((spec) => createOne(admin, spec)));
  await waitForLeaders(
    admin,
    missing.map((s) => s.topic),
  );
  return missing.filter((_, i) => created[i]).map((s) => s.topic);
}

/**
 * Creates one topic; false when the controller has it already: the broker that listed the topics may trail it
 * (a topic created a moment ago, by this process or another instance). One request per topic, because kafkajs
 * answers false for a request in which any topic existed, without saying which.
 */
function createOne(admin: Admin, spec: TopicSpec): Promise<boolean> {
  return admin.createTopics({
    waitForLeaders: false,
    topics: [
      {
        topic: spec.topic,
        numPartitions: spec.partitions ?? 1,
        ...(spec.replicationFactor !== undefined ? { replicationFactor: spec.replicationFactor } : {}),
        ...(spec.config ? { configEntries: Object.entries(spec.config).map(([name, value]) => ({ name, value })) } : {}),
      },
    ],
  });
}

const LEADERS_WAIT_MS = 30_000;

/**
 * Polls the metadata until every partition of the topics has a leader. kafkajs's own wait gives up when a broker
 * answers UNKNOWN_TOPIC_OR_PARTITION, which a Kafka cluster does for a moment after a topic's creation (a broker's
 * metadata trails the controller's), and sooner still after a topic of the same name was deleted.
 */
async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + LEADERS_WAIT_MS;
  for (;;) {
    const ready = await admin
      .fetchTopicMetadata({ topics })
      .then((m) => m.topics.length === topics.length && m.topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
      .catch(() => false);
    if (ready) return;
    if (Date.now() > deadline) {
      throw new DeltabrokerError(
        'DB_DEPENDENCY_UNAVAILABLE',
        `the new topics ${topics.join(', ')} had no leader for every partition within ${LEADERS_WAIT_MS} ms`,
        {
          stage: 'write-log',
          field: 'topic',
          rule: 'leader',
        },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Standalone helper (CLI, tests, scripts): connects to `brokers`, creates the missing topics, disconnects. */
export async function ensureTopics(brokers: readonly string[], specs: readonly TopicSpec[], sasl?: KafkaSasl): Promise<string[]> {
  const admin = kafkaClient({ clientId: 'deltabroker-topics', brokers: [...brokers], ...saslConfig(sasl), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return await createTopics(admin, specs);
  } finally {
    await admin.disconnect();
  }
}
