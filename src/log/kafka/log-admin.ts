/**
 * The LogAdmin and ClusterAdmin ports on any Kafka-protocol broker: Metadata for topics, ListOffsets for
 * watermarks, OffsetFetch for committed offsets; CreatePartitions, Describe/AlterConfigs and the group APIs
 * for operators. Its own admin connection, so the CLI can use it without a producer or a schema registry.
 */
import { type KafkaSasl, saslConfig } from './client-security';
import { AssignerProtocol, ConfigResourceTypes, logLevel, type Admin } from 'kafkajs';
import { kafkaClient } from './kafka-client';
import { DeltabrokerError, type ErrorCode } from '../../errors';
import type { ClusterAdmin, GroupDescription, GroupListing, TopicConfigEntry } from '../cluster-admin';
import type { Offset, TopicOffsets } from '../port';
import type { CommittedOffset } from '../log-admin';
import type { Logger } from '../../logger';
import { kafkajsLogCreator } from './kafkajs-logger';

/** Kafka error types an operator's request can meet, and what they mean to us. */
const REFUSALS: Record<string, ErrorCode> = {
  UNKNOWN_TOPIC_OR_PARTITION: 'DB_NOT_FOUND',
  GROUP_ID_NOT_FOUND: 'DB_NOT_FOUND',
  INVALID_PARTITIONS: 'DB_VALIDATION',
  INVALID_CONFIG: 'DB_VALIDATION',
  INVALID_REQUEST: 'DB_VALIDATION',
  POLICY_VIOLATION: 'DB_VALIDATION',
  NON_EMPTY_GROUP: 'DB_CONFLICT',
  UNKNOWN_MEMBER_ID: 'DB_CONFLICT',
};

/** Turns a broker's refusal into a DeltabrokerError naming `field`; anything else is thrown as it came. */
function refusal(error: unknown, field: string, subject: string): unknown {
  const e = error as { type?: string; message?: string; groups?: { error?: { type?: string; message?: string } }[] };
  const cause = e.groups?.[0]?.error ?? e; // DeleteGroups reports per group
  const code = cause.type ? REFUSALS[cause.type] : undefined;
  if (!code) return error;
  return new DeltabrokerError(
    code,
    `${subject}: ${cause.message ?? cause.type}`,
    { field, rule: cause.type!.toLowerCase().replace(/_/g, '-'), stage: 'cli' },
    { cause: error },
  );
}

export interface KafkaLogAdminOptions {
  readonly brokers: readonly string[];
  /** SASL identity on the brokers; anonymous without it. */
  readonly sasl?: KafkaSasl;
  readonly clientId?: string;
  /** kafkajs lines go here; none are written without it. */
  readonly logger?: Logger;
  /** Connection timeout in ms (default 3000). */
  readonly connectionTimeout?: number;
  /** Retries of a failed request or connection (default 2: an operator waits seconds, not a minute). */
  readonly retries?: number;
}

export class KafkaLogAdmin implements ClusterAdmin {
  private constructor(private readonly admin: Admin) {}

  static async open(o: KafkaLogAdminOptions): Promise<KafkaLogAdmin> {
    const kafka = kafkaClient({
      clientId: o.clientId ?? 'deltabroker-admin',
      brokers: [...o.brokers],
      connectionTimeout: o.connectionTimeout ?? 3000,
      ...saslConfig(o.sasl),
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

  async createPartitions(topic: string, count: number): Promise<void> {
    await this.admin.createPartitions({ topicPartitions: [{ topic, count }] }).catch((e: unknown) => {
      throw refusal(e, 'partitions', `topic '${topic}'`);
    });
  }

  async topicConfigs(topic: string): Promise<TopicConfigEntry[]> {
    const described = await this.admin
      .describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }] })
      .catch((e: unknown) => {
        throw refusal(e, 'topic', `topic '${topic}'`);
      });
    return (described.resources[0]?.configEntries ?? [])
      .map((c) => ({ name: c.configName, value: c.configValue, isDefault: c.isDefault }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** AlterConfigs replaces a topic's whole set, so the topic's own values are read first and sent along. */
  async setTopicConfigs(topic: string, configs: Readonly<Record<string, string>>): Promise<void> {
    const kept = (await this.topicConfigs(topic)).filter((c) => !c.isDefault && c.value !== null && !(c.name in configs));
    const configEntries = [...kept.map((c) => ({ name: c.name, value: c.value! })), ...Object.entries(configs).map(([name, value]) => ({ name, value }))];
    await this.admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries }] }).catch((e: unknown) => {
      throw refusal(e, Object.keys(configs).join(','), `topic '${topic}'`);
    });
  }

  async listGroups(): Promise<GroupListing[]> {
    return (await this.admin.listGroups()).groups
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType }))
      .sort((a, b) => a.groupId.localeCompare(b.groupId));
  }

  async describeGroup(groupId: string): Promise<GroupDescription> {
    const [group] = (await this.admin.describeGroups([groupId])).groups;
    if (!group) throw new DeltabrokerError('DB_NOT_FOUND', `no group '${groupId}'`, { field: 'group', stage: 'cli' });
    const committed = group.state === 'Dead' ? [] : await this.admin.fetchOffsets({ groupId });
    return {
      groupId,
      state: group.state,
      protocolType: group.protocolType,
      protocol: group.protocol,
      members: group.members.map((m) => ({
        memberId: m.memberId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        assignment: memberAssignment(group.protocolType, m.memberAssignment),
      })),
      offsets: committed.flatMap(({ topic, partitions }) =>
        partitions.filter((p) => BigInt(p.offset) >= 0n).map((p) => ({ topic, partition: p.partition, offset: p.offset })),
      ),
    };
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.admin.deleteGroups([groupId]).catch((e: unknown) => {
      throw refusal(e, 'group', `group '${groupId}'`);
    });
  }

  async offsetsForTime(topic: string, timestamp: number): Promise<{ partition: number; offset: Offset | null }[]> {
    const found = await this.admin.fetchTopicOffsetsByTimestamp(topic, timestamp);
    return found.map((p) => ({ partition: p.partition, offset: BigInt(p.offset) < 0n ? null : p.offset })).sort((a, b) => a.partition - b.partition);
  }

  /** kafkajs commits by joining the group as a paused consumer and seeking; it refuses a group with running members. */
  async commitGroupOffsets(groupId: string, topic: string, offsets: readonly { partition: number; offset: Offset }[]): Promise<void> {
    await this.admin.setOffsets({ groupId, topic, partitions: offsets.map((o) => ({ partition: o.partition, offset: o.offset })) }).catch((e: unknown) => {
      if (/no running instances/.test((e as Error).message)) {
        throw new DeltabrokerError(
          'DB_CONFLICT',
          `group '${groupId}' has running members; stop its consumers first`,
          { field: 'group', rule: 'group-empty', stage: 'cli' },
          { cause: e },
        );
      }
      throw refusal(e, 'group', `group '${groupId}'`);
    });
  }

  close(): Promise<void> {
    return this.admin.disconnect();
  }
}

/** The partitions a consumer-group member was given (the consumer protocol's MemberAssignment). */
function memberAssignment(protocolType: string, bytes: Buffer): { topic: string; partitions: number[] }[] {
  if (protocolType !== 'consumer' || bytes.length === 0) return [];
  const decoded = AssignerProtocol.MemberAssignment.decode(bytes);
  return Object.entries(decoded?.assignment ?? {}).map(([topic, partitions]) => ({ topic, partitions: [...partitions].sort((a, b) => a - b) }));
}

/** Opens an admin connection for topics, watermarks and group offsets (see KafkaLogAdminOptions). */
export const openKafkaLogAdmin = (o: KafkaLogAdminOptions): Promise<KafkaLogAdmin> => KafkaLogAdmin.open(o);
