import type { GroupCoordinator } from '../../../src/embedded/kafka/group/coordinator';
import { coordinatorPerTest } from './coordinator-fixture';
import type { JoinRequest } from '../../../src/embedded/kafka/group/member';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';

const fixture = coordinatorPerTest('deltabroker-groups-');
let coordinator: GroupCoordinator;
beforeEach(() => (coordinator = fixture.current()));

const join = (memberId = '', more: Partial<JoinRequest> = {}) =>
  coordinator.join({
    groupId: 'g',
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 2_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from(memberId || 'new') }],
    clientId: 'c',
    clientHost: '127.0.0.1',
    ...more,
  });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('group coordinator', () => {
  test('a lone member joins, leads, and gets its own assignment back from SyncGroup', async () => {
    const j = await join();
    expect(j).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', leader: j.memberId });
    expect(j.members.map((m) => m.memberId)).toEqual([j.memberId]);
    const s = await coordinator.sync({ groupId: 'g', generationId: 1, memberId: j.memberId }, [{ memberId: j.memberId, assignment: Buffer.from('all') }]);
    expect(s).toEqual({ errorCode: 0, assignment: Buffer.from('all') });
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: j.memberId })).toBe(ErrorCode.NONE);
    expect(coordinator.describe('g')).toMatchObject({ state: 'Stable', generationId: 1 });
  });

  test('a second member triggers a rebalance: the first learns it by heartbeat and rejoins; both get the leader’s assignment', async () => {
    const a = await join();
    await coordinator.sync({ groupId: 'g', generationId: 1, memberId: a.memberId }, [{ memberId: a.memberId, assignment: Buffer.from('a1') }]);
    const bJoin = join();
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId })).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // Commits of the old generation are still taken while preparing (members commit before rejoining).
    expect(coordinator.commitAllowed({ groupId: 'g', generationId: 1, memberId: a.memberId })).toBe(ErrorCode.NONE);
    const [a2, b] = await Promise.all([join(a.memberId), bJoin]);
    expect(a2.generationId).toBe(2);
    expect(b.generationId).toBe(2);
    expect(a2.leader).toBe(a.memberId); // the leader stays
    expect(a2.members).toHaveLength(2);
    expect(b.members).toEqual([]);
    // The follower waits for the leader's SyncGroup.
    const bSync = coordinator.sync({ groupId: 'g', generationId: 2, memberId: b.memberId }, []);
    expect(coordinator.commitAllowed({ groupId: 'g', generationId: 2, memberId: b.memberId })).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const aSync = await coordinator.sync({ groupId: 'g', generationId: 2, memberId: a.memberId }, [
      { memberId: a.memberId, assignment: Buffer.from('A') },
      { memberId: b.memberId, assignment: Buffer.from('B') },
    ]);
    expect(aSync.assignment).toEqual(Buffer.from('A'));
    expect((await bSync).assignment).toEqual(Buffer.from('B'));
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: b.memberId })).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(coordinator.commitAllowed({ groupId: 'g', generationId: 1, memberId: a.memberId })).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  test('a member that stops heartbeating is evicted after its session timeout and the rest rebalance', async () => {
    const a = await join('', { sessionTimeoutMs: 150 });
    await coordinator.sync({ groupId: 'g', generationId: 1, memberId: a.memberId }, []);
    await sleep(300);
    expect(coordinator.describe('g')).toMatchObject({ state: 'Empty', members: [] });
    expect(coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: a.memberId })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  test('members that do not rejoin within the rebalance timeout are dropped from the new generation', async () => {
    const a = await join('', { rebalanceTimeoutMs: 200 });
    await coordinator.sync({ groupId: 'g', generationId: 1, memberId: a.memberId }, []);
    const started = Date.now();
    const b = await join('', { rebalanceTimeoutMs: 200 }); // a never rejoins
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(b).toMatchObject({ errorCode: 0, generationId: 2, leader: b.memberId });
    expect(coordinator.describe('g')!.members).toEqual([b.memberId]);
  });

  test('LeaveGroup removes at once; the last one out leaves the group Empty', async () => {
    const a = await join();
    await coordinator.sync({ groupId: 'g', generationId: 1, memberId: a.memberId }, []);
    expect(coordinator.leave('g', a.memberId)).toBe(ErrorCode.NONE);
    expect(coordinator.leave('g', a.memberId)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(coordinator.describe('g')!.state).toBe('Empty');
    // An empty group takes standalone commits (generation -1, no member).
    expect(coordinator.commitAllowed({ groupId: 'g', generationId: -1, memberId: '' })).toBe(ErrorCode.NONE);
  });

  test('refusals: unknown member, no common protocol, session timeout out of bounds', async () => {
    expect((await join('ghost')).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await join('', { sessionTimeoutMs: 10 })).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    const a = await join();
    await coordinator.sync({ groupId: 'g', generationId: 1, memberId: a.memberId }, []);
    const other = await join('', { protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] });
    expect(other.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await join('', { protocolType: 'connect' })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(coordinator.commitAllowed({ groupId: 'g', generationId: -1, memberId: '' })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  test('the protocol most members prefer among those all support is chosen', async () => {
    const proto = (...names: string[]) => names.map((name) => ({ name, metadata: Buffer.alloc(0) }));
    const aJoin = join('', { protocols: proto('roundrobin', 'range') });
    const a = await aJoin;
    expect(a.protocolName).toBe('roundrobin');
    await coordinator.sync({ groupId: 'g', generationId: 1, memberId: a.memberId }, []);
    const bJoin = join('', { protocols: proto('range') });
    const [a2, b] = await Promise.all([join(a.memberId, { protocols: proto('roundrobin', 'range') }), bJoin]);
    expect(a2.protocolName).toBe('range');
    expect(b.protocolName).toBe('range');
  });
});
