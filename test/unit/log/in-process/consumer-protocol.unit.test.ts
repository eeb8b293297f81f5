/**
 * The consumer-protocol bytes an in-process group member exchanges must be the ones kafkajs writes and reads,
 * and its leader must deal partitions as kafkajs's RoundRobinAssigner does, or mixed groups split wrongly.
 */
import { AssignerProtocol, PartitionAssigners } from 'kafkajs';
import {
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  ROUND_ROBIN,
} from '../../../../src/log/in-process/group/consumer-protocol';
import { assignRoundRobin } from '../../../../src/log/in-process/group/round-robin';

test('a subscription is byte for byte what kafkajs encodes, and kafkajs subscriptions decode', () => {
  const topics = ['deltas', 'acme.customer.events', 'ünï'];
  const ours = encodeSubscription(topics);
  expect(ours.equals(AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }))).toBe(true);
  expect(decodeSubscription(AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.from([1, 2]) }))).toEqual(topics);
  expect(decodeSubscription(Buffer.from([0, 0, 0, 0, 0, 9]))).toBeNull();
});

test('an assignment is byte for byte what kafkajs encodes, and kafkajs assignments decode', () => {
  const assignment = { deltas: [0, 2, 4], outcomes: [1] };
  const ours = encodeAssignment(new Map(Object.entries(assignment)));
  expect(ours.equals(AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData: Buffer.alloc(0) }))).toBe(true);
  expect(AssignerProtocol.MemberAssignment.decode(ours)?.assignment).toEqual(assignment);
  expect(Object.fromEntries(decodeAssignment(AssignerProtocol.MemberAssignment.encode({ version: 0, assignment, userData: Buffer.alloc(0) }))!)).toEqual(
    assignment,
  );
  expect(decodeAssignment(Buffer.alloc(0))).toEqual(new Map());
  expect(decodeAssignment(Buffer.from([0, 0, 0, 0, 0, 3, 0]))).toBeNull();
});

test('the leader deals partitions exactly as kafkajs RoundRobinAssigner for members of the same subscription', async () => {
  const partitionCounts: Record<string, number> = { a: 5, b: 3 };
  const topics = Object.keys(partitionCounts);
  const cluster = { findTopicPartitionMetadata: (t: string) => Array.from({ length: partitionCounts[t]! }, (_, p) => ({ partitionId: p })) };
  const kafkajs = PartitionAssigners.roundRobin({ cluster } as never);
  expect(kafkajs.name).toBe(ROUND_ROBIN);
  for (const count of [1, 2, 3, 9]) {
    const memberIds = Array.from({ length: count }, (_, i) => `member-${(i * 7) % 10}-${i}`);
    const theirs = await kafkajs.assign({ members: memberIds.map((memberId) => ({ memberId, memberMetadata: Buffer.alloc(0) })), topics });
    const ours = assignRoundRobin(
      memberIds.map((memberId) => ({ memberId, topics })),
      (t) => partitionCounts[t] ?? 0,
    );
    for (const memberId of memberIds) {
      const expected = theirs.find((a) => a.memberId === memberId);
      const got = Object.fromEntries(ours.get(memberId) ?? []);
      expect(got).toEqual(expected ? AssignerProtocol.MemberAssignment.decode(expected.memberAssignment)!.assignment : {});
    }
  }
});

test('a topic only goes to the members that subscribe to it', () => {
  const plan = assignRoundRobin(
    [
      { memberId: 'm1', topics: ['a'] },
      { memberId: 'm2', topics: ['a', 'b'] },
    ],
    (t) => (t === 'a' ? 2 : 3),
  );
  expect(Object.fromEntries(plan.get('m1')!)).toEqual({ a: [0] });
  expect(Object.fromEntries(plan.get('m2')!)).toEqual({ a: [1], b: [0, 1, 2] });
});
