/**
 * What observability needs from the write log beyond the write-log port: the topic list and the offsets a
 * consumer group committed. A port, so lag can be computed without an engine type in sight; the Kafka adapter
 * is src/log/kafka/log-admin.ts.
 */
import type { Offset, TopicOffsets } from './port';

export interface CommittedOffset {
  readonly topic: string;
  readonly partition: number;
  /** The group's committed offset (the next record it will read), or null when it never committed one. */
  readonly offset: Offset | null;
}

export interface LogAdmin {
  /** Every topic name, sorted. */
  listTopics(): Promise<string[]>;
  /** Low and high offsets of each partition of a topic, by partition. */
  topicOffsets(topic: string): Promise<TopicOffsets[]>;
  /** A group's committed offsets on every partition of `topics` (existing topics only). */
  committedOffsets(groupId: string, topics: readonly string[]): Promise<CommittedOffset[]>;
  close(): Promise<void>;
}
