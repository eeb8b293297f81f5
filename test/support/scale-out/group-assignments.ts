import { AssignerProtocol, Kafka, logLevel, type Admin } from 'kafkajs';

async function withClusterAdmin<T>(brokers: string[], use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Kafka({ brokers, clientId: 'scale-out-groups', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

export interface GroupAssignment {
  groupId: string;
  state: string;
  /** Per member (its client host and id), the partitions it holds, as `topic/partition`. */
  members: { clientId: string; clientHost: string; partitions: string[] }[];
}

/** How the cluster's coordinators assigned the partitions of every consumer group whose name starts with `prefix`. */
export function readGroupAssignments(brokers: string[], prefix: string): Promise<GroupAssignment[]> {
  return withClusterAdmin(brokers, async (admin) => {
    const ids = (await admin.listGroups()).groups.map((g) => g.groupId).filter((id) => id.startsWith(prefix));
    const described = await admin.describeGroups(ids);
    return described.groups.map((group) => ({
      groupId: group.groupId,
      state: group.state,
      members: group.members.map((member) => {
        const assignment = member.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(member.memberAssignment) : null;
        const partitions = Object.entries(assignment?.assignment ?? {}).flatMap(([topic, ps]) => ps.map((p) => `${topic}/${p}`));
        return { clientId: member.clientId, clientHost: member.clientHost, partitions };
      }),
    }));
  });
}

/** Every partition of the topics, as `topic/partition`. */
export function partitionsOf(brokers: string[], topics: string[]): Promise<string[]> {
  return withClusterAdmin(brokers, async (admin) => {
    const metadata = await admin.fetchTopicMetadata({ topics });
    return metadata.topics.flatMap((t) => t.partitions.map((p) => `${t.name}/${p.partitionId}`));
  });
}

/** The broker that leads the most partitions of the topic. */
export function busiestLeader(brokers: string[], topic: string): Promise<{ nodeId: number; partitions: number }> {
  return withClusterAdmin(brokers, async (admin) => {
    const [metadata] = (await admin.fetchTopicMetadata({ topics: [topic] })).topics;
    const counts = new Map<number, number>();
    for (const p of metadata?.partitions ?? []) counts.set(p.leader, (counts.get(p.leader) ?? 0) + 1);
    const [nodeId, partitions] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
    return { nodeId, partitions };
  });
}

/** Per partition of the topics, as `topic/partition`, its high watermark. */
export function endOffsets(brokers: string[], topics: string[]): Promise<Record<string, string>> {
  return withClusterAdmin(brokers, async (admin) => {
    const ends: Record<string, string> = {};
    for (const topic of topics) for (const p of await admin.fetchTopicOffsets(topic)) ends[`${topic}/${p.partition}`] = p.high;
    return ends;
  });
}
