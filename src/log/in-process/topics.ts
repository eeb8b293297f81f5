/** Topic creation and watermarks on the broker's LogManager, with the checks its CreateTopics handler makes. */
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import type { LogManager } from '../../embedded/kafka/storage/log-manager';
import type { TopicOffsets, TopicSpec } from '../port';
import { brokerRefused, unknownTopic } from './log-errors';

/**
 * Creates the topics that do not exist yet and answers the names it created. Every new topic is checked
 * first: if one is refused (name, partitions, replication factor, config), none is created.
 */
export function createTopics(logs: LogManager, specs: readonly TopicSpec[]): string[] {
  const missing = specs.filter((s, i) => !logs.topic(s.topic) && specs.findIndex((t) => t.topic === s.topic) === i);
  for (const s of missing) {
    const factor = s.replicationFactor ?? -1;
    if (factor !== 1 && factor !== -1) {
      throw brokerRefused(`creating topic '${s.topic}'`, ErrorCode.INVALID_REPLICATION_FACTOR, `replication factor ${factor}: the embedded broker is one node`);
    }
    const check = logs.validateNewTopic(s.topic, s.partitions ?? 1, { ...s.config });
    if (check.errorCode !== ErrorCode.NONE) throw brokerRefused(`creating topic '${s.topic}'`, check.errorCode, check.message);
  }
  for (const s of missing) logs.createTopic(s.topic, s.partitions ?? 1, { ...s.config });
  return missing.map((s) => s.topic);
}

/** Low (log start) and high (high watermark) offsets of each partition. */
export function topicOffsets(logs: LogManager, topic: string): TopicOffsets[] {
  const found = logs.topic(topic);
  if (!found) throw unknownTopic(topic);
  return found.partitions.map((p) => ({ partition: p.partition, low: String(p.logStartOffset), high: String(p.highWatermark) }));
}
