import { ErrorCode } from '../protocol/errors';
import { Reader } from '../protocol/reader';
import type { GroupCoordinator } from './coordinator';
import type { Group } from './group';

/**
 * Group administration (ListGroups, DescribeGroups, DeleteGroups, OffsetDelete) over the coordinator's live
 * groups and the committed-offsets store. A group that only has committed offsets (no member since the
 * broker started) is a group too, in state Empty, as in Kafka.
 */
export interface GroupListing {
  groupId: string;
  protocolType: string;
  state: string;
}

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  metadata: Buffer;
  assignment: Buffer;
}

export interface GroupDescription {
  groupId: string;
  /** Kafka's state names; 'Dead' for a group the broker does not know. */
  state: string;
  protocolType: string;
  /** The chosen protocol (the assignor) while Stable, else ''. */
  protocol: string;
  members: GroupMemberDescription[];
}

export interface OffsetDeleteOutcome {
  errorCode: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

const EMPTY = Buffer.alloc(0);

export function listGroups(groups: GroupCoordinator, statesFilter: readonly string[] = []): GroupListing[] {
  const ids = new Set([...groups.liveGroupIds(), ...groups.offsetStore.groupIds()]);
  // A group whose members left stays listed (Empty) until it is deleted, as in Kafka before its cleanup runs.
  const listed = [...ids].sort().map((groupId): GroupListing => {
    const g = groups.peek(groupId);
    return { groupId, protocolType: g?.protocolType ?? '', state: g?.state ?? 'Empty' };
  });
  const wanted = new Set(statesFilter.map((s) => s.toLowerCase()));
  return wanted.size === 0 ? listed : listed.filter((l) => wanted.has(l.state.toLowerCase()));
}

export function describeGroup(groups: GroupCoordinator, groupId: string): GroupDescription {
  const g = groups.peek(groupId);
  if (!g || g.members.size === 0) {
    const state = groups.offsetStore.hasGroup(groupId) || g ? 'Empty' : 'Dead';
    return { groupId, state, protocolType: g?.protocolType ?? '', protocol: '', members: [] };
  }
  const stable = g.state === 'Stable';
  return {
    groupId,
    state: g.state,
    protocolType: g.protocolType ?? '',
    protocol: stable ? (g.protocolName ?? '') : '',
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      metadata: stable ? (m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? EMPTY) : EMPTY,
      assignment: stable ? m.assignment : EMPTY,
    })),
  };
}

/** Deletes a group with no members and its committed offsets; a group with members is refused (NON_EMPTY_GROUP). */
export async function deleteGroup(groups: GroupCoordinator, groupId: string): Promise<number> {
  if (!groupId) return ErrorCode.INVALID_GROUP_ID;
  const g = groups.peek(groupId);
  if (g && g.members.size > 0) return ErrorCode.NON_EMPTY_GROUP;
  if (!g && !groups.offsetStore.hasGroup(groupId)) return ErrorCode.GROUP_ID_NOT_FOUND;
  groups.forget(groupId);
  await groups.offsetStore.deleteGroup(groupId);
  return ErrorCode.NONE;
}

/**
 * Deletes committed offsets of some partitions. An active consumer group keeps the offsets of topics its
 * members subscribe to (GROUP_SUBSCRIBED_TO_TOPIC); an active group of another protocol type is refused
 * whole (NON_EMPTY_GROUP).
 */
export async function deleteOffsets(
  groups: GroupCoordinator,
  groupId: string,
  topics: readonly { name: string; partitionIndexes: readonly number[] }[],
  topicExists: (name: string) => boolean,
): Promise<OffsetDeleteOutcome> {
  const g = groups.peek(groupId);
  const active = g !== undefined && g.members.size > 0;
  if (!active && !groups.offsetStore.hasGroup(groupId)) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, topics: [] };
  if (active && g.protocolType !== 'consumer') return { errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] };
  const subscribed = active ? subscriptionOf(g) : () => false;
  const deleted: { topic: string; partition: number }[] = [];
  const answer = topics.map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((partitionIndex) => {
      let errorCode: number = ErrorCode.NONE;
      if (!topicExists(t.name)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (subscribed(t.name)) errorCode = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC;
      else deleted.push({ topic: t.name, partition: partitionIndex });
      return { partitionIndex, errorCode };
    }),
  }));
  await groups.offsetStore.deleteOffsets(groupId, deleted);
  return { errorCode: ErrorCode.NONE, topics: answer };
}

/**
 * Whether a consumer group's members subscribe to a topic, from their ConsumerProtocolSubscription (version,
 * then the topic names). Metadata that does not parse counts as a subscription to every topic.
 */
function subscriptionOf(g: Group): (topic: string) => boolean {
  const topics = new Set<string>();
  for (const m of g.members.values()) {
    const metadata = m.protocols.find((p) => p.name === g.protocolName)?.metadata ?? m.protocols[0]?.metadata ?? EMPTY;
    try {
      const r = new Reader(metadata);
      r.int16();
      for (const t of r.array((r) => r.string())) topics.add(t);
    } catch {
      return () => true;
    }
  }
  return (topic) => topics.has(topic);
}
