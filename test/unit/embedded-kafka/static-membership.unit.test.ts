import type { GroupCoordinator } from '../../../src/embedded/kafka/group/coordinator';
import { coordinatorPerTest } from './coordinator-fixture';
import type { JoinRequest } from '../../../src/embedded/kafka/group/member';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';

/** KIP-345 in the coordinator: a restarted static member takes its old place with no rebalance. */
const fixture = coordinatorPerTest('deltabroker-static-');
let coordinator: GroupCoordinator;
beforeEach(() => (coordinator = fixture.current()));

const join = (groupInstanceId: string | null, memberId = '', more: Partial<JoinRequest> = {}) =>
  coordinator.join({
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 300,
    memberId,
    groupInstanceId,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from('topics') }],
    clientId: 'c',
    clientHost: '127.0.0.1',
    ...more,
  });
const ref = (memberId: string, generationId: number, groupInstanceId: string | null = null) => ({ groupId: 'g', generationId, memberId, groupInstanceId });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Static members a (leader) and b in a Stable group, each with its assignment. */
async function stableGroup() {
  const a = await join('a');
  const bJoin = join('b');
  const a2 = await join('a', a.memberId);
  const b = await bJoin;
  const bSync = coordinator.sync(ref(b.memberId, b.generationId, 'b'), []);
  await coordinator.sync(ref(a.memberId, a2.generationId, 'a'), [
    { memberId: a.memberId, assignment: Buffer.from('A') },
    { memberId: b.memberId, assignment: Buffer.from('B') },
  ]);
  await bSync;
  return { a: a.memberId, b: b.memberId, generation: a2.generationId };
}

describe('static membership (KIP-345)', () => {
  test('member ids of static members start with the instance id', async () => {
    expect((await join('a')).memberId).toMatch(/^a-/);
  });

  test('a follower restarting under its instance id gets a new member id, the same generation and its old assignment: no rebalance', async () => {
    const { a, b, generation } = await stableGroup();
    const b2 = await join('b');
    expect(b2).toMatchObject({ errorCode: 0, generationId: generation, leader: a, members: [] });
    expect(b2.memberId).not.toBe(b);
    expect(await coordinator.sync(ref(b2.memberId, generation, 'b'), [])).toEqual({ errorCode: 0, assignment: Buffer.from('B') });
    expect(coordinator.heartbeat(ref(a, generation, 'a'))).toBe(ErrorCode.NONE);
    expect(coordinator.describe('g')).toMatchObject({ state: 'Stable', generationId: generation, members: [a, b2.memberId] });
  });

  test('the old member id is fenced on Heartbeat, SyncGroup, OffsetCommit, JoinGroup and LeaveGroup', async () => {
    const { b, generation } = await stableGroup();
    const b2 = await join('b');
    expect(coordinator.heartbeat(ref(b, generation, 'b'))).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await coordinator.sync(ref(b, generation, 'b'), [])).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coordinator.commitAllowed(ref(b, generation, 'b'))).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await join('b', b)).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coordinator.leave('g', b, 'b')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    // Without the instance id (older versions) the old id is merely unknown.
    expect(coordinator.heartbeat(ref(b, generation))).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coordinator.heartbeat(ref(b2.memberId, generation, 'b'))).toBe(ErrorCode.NONE);
    expect(coordinator.describe('g')?.state).toBe('Stable');
  });

  test('a restarting leader stays leader without being told: the answer names its old id, so it does not assign again', async () => {
    const { a, b, generation } = await stableGroup();
    const a2 = await join('a');
    expect(a2).toMatchObject({ errorCode: 0, generationId: generation, leader: a, members: [] });
    expect(await coordinator.sync(ref(a2.memberId, generation, 'a'), [])).toEqual({ errorCode: 0, assignment: Buffer.from('A') });
    expect(coordinator.heartbeat(ref(b, generation, 'b'))).toBe(ErrorCode.NONE);
    // The next rebalance has the new id lead.
    expect((await coordinator.sync(ref(a, generation, 'a'), [])).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coordinator.leave('g', b, 'b')).toBe(ErrorCode.NONE);
    const a3 = await join('a', a2.memberId);
    expect(a3).toMatchObject({ generationId: generation + 1, leader: a2.memberId });
  });

  test('a static member rejoining with other protocols keeps the group Stable while the selected protocol stays', async () => {
    const { a, b, generation } = await stableGroup();
    const b2Join = join('b', '', {
      protocols: [
        { name: 'roundrobin', metadata: Buffer.alloc(0) },
        { name: 'range', metadata: Buffer.alloc(0) },
      ],
    });
    await sleep(10);
    expect(coordinator.describe('g')?.state).toBe('Stable'); // range is still every member's common first choice
    const b2 = await b2Join;
    expect(b2.generationId).toBe(generation);
    expect(coordinator.heartbeat(ref(a, generation, 'a'))).toBe(ErrorCode.NONE);
    expect(b).not.toBe(b2.memberId);
  });

  test('a static member restarting mid-rebalance joins that rebalance under its new id; the old id’s parked join is fenced', async () => {
    const { a, b, generation } = await stableGroup();
    // b's old process rejoins with a new subscription: a rebalance starts and its join is parked.
    const bOld = join('b', b, { protocols: [{ name: 'range', metadata: Buffer.from('other topics') }] });
    const b2 = join('b');
    expect((await bOld).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const [a2, b3] = await Promise.all([join('a', a), b2]);
    expect(a2.generationId).toBe(generation + 1);
    expect(a2.members.map((m) => [m.memberId, m.groupInstanceId])).toEqual([
      [a, 'a'],
      [b3.memberId, 'b'],
    ]);
    expect((await join('b', b)).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  test('a static member that does not rejoin a rebalance stays in the group until its session times out', async () => {
    const { a, b, generation } = await stableGroup();
    const a2 = await Promise.race([join('a', a), sleep(600).then(() => null)]); // b is away; the deadline (300 ms) completes it
    expect(a2).toMatchObject({ generationId: generation + 1, leader: a });
    expect(a2!.members.map((m) => m.memberId)).toEqual([a, b]);
    expect(coordinator.heartbeat(ref(b, generation, 'b'))).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  test('a static member whose session times out is removed and the group rebalances', async () => {
    const a = await join('a', '', { sessionTimeoutMs: 150 });
    await coordinator.sync(ref(a.memberId, a.generationId, 'a'), []);
    await sleep(400);
    expect(coordinator.describe('g')).toMatchObject({ state: 'Empty', members: [] });
    expect((await join('a')).memberId).not.toBe(a.memberId);
  });

  test('LeaveGroup by instance id alone (v3, an admin removing a static member) removes it and rebalances', async () => {
    const { a, generation } = await stableGroup();
    expect(coordinator.leave('g', '', 'b')).toBe(ErrorCode.NONE);
    expect(coordinator.heartbeat(ref(a, generation, 'a'))).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(coordinator.leave('g', '', 'b')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coordinator.leave('g', '', 'nobody')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  test('an OffsetCommit naming only an instance id is a member commit, not a standalone one', async () => {
    const { b, generation } = await stableGroup();
    expect(coordinator.commitAllowed(ref('', -1, 'b'))).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect(coordinator.commitAllowed(ref(b, generation, 'b'))).toBe(ErrorCode.NONE);
  });
});
