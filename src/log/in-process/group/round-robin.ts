/**
 * The leader's assignment under the `RoundRobinAssigner` protocol: the partitions of every subscribed topic,
 * in topic and partition order, dealt in turn to the members (sorted by id) that subscribe to that topic.
 * When every member subscribes to the same topics this is exactly kafkajs's RoundRobinAssigner.
 */
import type { Assignment } from './consumer-protocol';

export interface Subscriber {
  readonly memberId: string;
  readonly topics: readonly string[];
}

/** `partitionsOf(topic)` answers the topic's partition count (0 for a topic that does not exist). */
export function assignRoundRobin(members: readonly Subscriber[], partitionsOf: (topic: string) => number): Map<string, Assignment> {
  const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0));
  const result = new Map<string, Map<string, number[]>>(sorted.map((m) => [m.memberId, new Map()]));
  const topics = [...new Set(sorted.flatMap((m) => m.topics))].sort();
  let turn = 0;
  for (const topic of topics) {
    const takers = sorted.filter((m) => m.topics.includes(topic));
    for (let partition = 0; partition < partitionsOf(topic); partition++) {
      const member = takers[turn++ % takers.length]!;
      const mine = result.get(member.memberId)!;
      const list = mine.get(topic);
      if (list) list.push(partition);
      else mine.set(topic, [partition]);
    }
  }
  return result;
}
