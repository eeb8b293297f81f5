/**
 * What operators' commands need from the log's cluster beyond reading lag: change a topic's partitions and
 * configs, and list, describe, delete and reposition consumer groups. A port, so the CLI names no engine
 * type; the Kafka adapter is src/log/kafka/log-admin.ts. Refusals are DeltabrokerErrors (DB_NOT_FOUND,
 * DB_CONFLICT, DB_VALIDATION) naming the field and rule.
 */
import type { LogAdmin } from './log-admin';
import type { Offset } from './port';

export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string | null;
  /** True when the topic does not set it (the broker's default applies). */
  readonly isDefault: boolean;
}

export interface GroupListing {
  readonly groupId: string;
  /** `consumer` for consumer groups; empty for a group known only from its committed offsets. */
  readonly protocolType: string;
}

export interface GroupMember {
  readonly memberId: string;
  readonly clientId: string;
  readonly clientHost: string;
  /** The partitions the member was given (consumer groups in state Stable; empty otherwise). */
  readonly assignment: readonly { readonly topic: string; readonly partitions: readonly number[] }[];
}

export interface GroupDescription {
  readonly groupId: string;
  /** Kafka's state: Empty, PreparingRebalance, CompletingRebalance, Stable, or Dead for an unknown group. */
  readonly state: string;
  readonly protocolType: string;
  /** The partition assignor while Stable. */
  readonly protocol: string;
  readonly members: readonly GroupMember[];
  /** Every offset the group committed. */
  readonly offsets: readonly { readonly topic: string; readonly partition: number; readonly offset: Offset }[];
}

export interface ClusterAdmin extends LogAdmin {
  /** Raises a topic's partition count; existing partitions keep their records. */
  createPartitions(topic: string, count: number): Promise<void>;
  topicConfigs(topic: string): Promise<TopicConfigEntry[]>;
  /** Sets the named configs of a topic and keeps the others. */
  setTopicConfigs(topic: string, configs: Readonly<Record<string, string>>): Promise<void>;
  listGroups(): Promise<GroupListing[]>;
  describeGroup(groupId: string): Promise<GroupDescription>;
  /** Deletes a group without members and its committed offsets. */
  deleteGroup(groupId: string): Promise<void>;
  /** Per partition, the first offset whose record time is at or after `timestamp`, or null when none is. */
  offsetsForTime(topic: string, timestamp: number): Promise<{ partition: number; offset: Offset | null }[]>;
  /** Commits offsets for a group that has no members (its consumers are stopped). */
  commitGroupOffsets(groupId: string, topic: string, offsets: readonly { partition: number; offset: Offset }[]): Promise<void>;
}
