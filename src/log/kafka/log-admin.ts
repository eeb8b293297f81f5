/**
 * The LogAdmin port on any Kafka-protocol broker: Metadata for topics, ListOffsets for low/high watermarks and
 * OffsetFetch (through the group coordinator) for committed offsets. Its own admin connection, so the CLI can
 * use it without a producer or a schema registry.
 */
import { Kafka, logLevel, type Admin } from 'kafkajs';
import type { TopicOffsets } from '../port';
import type { CommittedOffset, LogAdmin } from '../../observability/log-admin';
import type { Logger } from '../../logger';
import { kafkajsLogCreator } from './kafkajs-logger';

export interface KafkaLogAdminOptions {
  readonly brokers: readonly string[];
  readonly clientId?: string;
  /** kafkajs lines go here; none are written without it. */
  readonly logger?: Logger;
  /** Connection timeout in ms (default 3000). */
  readonly connectionTimeout?: number;
  /** Retries of a failed request or connection (default 2: an operator waits seconds, not a minute). */
  readonly retries?: number;
}

export class KafkaLogAdmin implements LogAdmin {
  private constructor(private readonly admin: Admin) {}

  static async open(o: KafkaLogAdminOptions): Promise<KafkaLogAdmin> {
    const kafka = new Kafka({
      clientId: o.clientId ?? 'deltabroker-admin',
      brokers: [...o.brokers],
      connectionTimeout: o.connectionTimeout ?? 3000,
      retry: { retries: o.retries ?? 2, initialRetryTime: 200 },
      logLevel: o.logger ? logLevel.WARN : logLevel.NOTHING,
      ...(o.logger && { logCreator: kafkajsLogCreator(o.logger) }),
    });
    const admin = kafka.admin();
    await admin.connect();
    return new KafkaLogAdmin(admin);
  }

  async listTopics(): Promise<string[]> {
    return (await this.admin.listTopics()).sort();
  }

  async topicOffsets(topic: string): Promise<TopicOffsets[]> {
    const offsets = await this.admin.fetchTopicOffsets(topic);
    return offsets.map((p) => ({ partition: p.partition, low: p.low, high: p.high })).sort((a, b) => a.partition - b.partition);
  }

  async committedOffsets(groupId: string, topics: readonly string[]): Promise<CommittedOffset[]> {
    if (topics.length === 0) return [];
    const answer = await this.admin.fetchOffsets({ groupId, topics: [...topics] });
    return answer.flatMap(({ topic, partitions }) =>
      // Kafka answers -1 for a partition the group never committed.
      partitions.map((p) => ({ topic, partition: p.partition, offset: BigInt(p.offset) < 0n ? null : p.offset })),
    );
  }

  close(): Promise<void> {
    return this.admin.disconnect();
  }
}

/** Opens an admin connection for topics, watermarks and group offsets (see KafkaLogAdminOptions). */
export const openKafkaLogAdmin = (o: KafkaLogAdminOptions): Promise<KafkaLogAdmin> => KafkaLogAdmin.open(o);
