import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { GroupCoordinator } from '../../../src/embedded/kafka/group/coordinator';
import { deleteGroup, deleteOffsets, describeGroup, listGroups } from '../../../src/embedded/kafka/group/group-admin';
import { OffsetStore } from '../../../src/embedded/kafka/group/offset-store';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';

let dir: string;
let store: OffsetStore;
let groups: GroupCoordinator;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-group-admin-'));
  store = OffsetStore.open(dir, 'never', 1000, silentLogger());
  groups = new GroupCoordinator(
    store,
    { minSessionTimeoutMs: 100, maxSessionTimeoutMs: 60_000, initialRebalanceDelayMs: 0, sessionCheckIntervalMs: 20 },
    silentLogger(),
  );
});
afterEach(async () => {
  groups.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A ConsumerProtocolSubscription v0: version, topics, user data. */
const subscription = (...topics: string[]): Buffer =>
  new Writer()
    .int16(0)
    .array(topics, (w, t) => w.string(t))
    .nullableBytes(null)
    .toBuffer();

async function activeMember(groupId: string, protocolType: string, metadata: Buffer): Promise<string> {
  const j = await groups.join({
    groupId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 2_000,
    memberId: '',
    groupInstanceId: null,
    protocolType,
    protocols: [{ name: 'range', metadata }],
    clientId: 'c',
    clientHost: '/127.0.0.1',
  });
  await groups.sync({ groupId, generationId: j.generationId, memberId: j.memberId }, [{ memberId: j.memberId, assignment: Buffer.from('a') }]);
  return j.memberId;
}

const commit = (groupId: string, topic: string, partition: number, offset: number) =>
  groups.commitOffsets(groupId, [{ topic, partition, offset, leaderEpoch: -1, metadata: null, commitTimestamp: 0 }]);

describe('group administration', () => {
  test('list: live groups and groups known only from committed offsets; filtered by state', async () => {
    await activeMember('live', 'consumer', subscription('t'));
    await commit('stored', 't', 0, 3);
    expect(listGroups(groups)).toEqual([
      { groupId: 'live', protocolType: 'consumer', state: 'Stable' },
      { groupId: 'stored', protocolType: '', state: 'Empty' },
    ]);
    expect(listGroups(groups, ['empty'])).toEqual([{ groupId: 'stored', protocolType: '', state: 'Empty' }]);
  });

  test('describe: members with metadata and assignment while Stable; Empty from offsets; Dead when unknown', async () => {
    const member = await activeMember('live', 'consumer', subscription('t'));
    expect(describeGroup(groups, 'live')).toEqual({
      groupId: 'live',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'range',
      members: [
        { memberId: member, groupInstanceId: null, clientId: 'c', clientHost: '/127.0.0.1', metadata: subscription('t'), assignment: Buffer.from('a') },
      ],
    });
    await commit('stored', 't', 0, 3);
    expect(describeGroup(groups, 'stored')).toEqual({ groupId: 'stored', state: 'Empty', protocolType: '', protocol: '', members: [] });
    expect(describeGroup(groups, 'nobody').state).toBe('Dead');
  });

  test('delete: refused with members, allowed once they left; offsets go with the group', async () => {
    const member = await activeMember('g', 'consumer', subscription('t'));
    await commit('g', 't', 0, 3);
    expect(await deleteGroup(groups, 'g')).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect(groups.leave('g', member)).toBe(ErrorCode.NONE);
    expect(await deleteGroup(groups, 'g')).toBe(ErrorCode.NONE);
    expect(store.get('g', 't', 0)).toBeUndefined();
    expect(describeGroup(groups, 'g').state).toBe('Dead');
    expect(await deleteGroup(groups, 'g')).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await deleteGroup(groups, '')).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  test('offset delete: an active consumer group keeps the offsets of topics it subscribes to; others go', async () => {
    await activeMember('g', 'consumer', subscription('read'));
    await commit('g', 'read', 0, 1);
    await commit('g', 'old', 0, 2);
    const exists = (t: string) => t !== 'missing';
    expect(
      await deleteOffsets(
        groups,
        'g',
        [
          { name: 'read', partitionIndexes: [0] },
          { name: 'old', partitionIndexes: [0] },
          { name: 'missing', partitionIndexes: [0] },
        ],
        exists,
      ),
    ).toEqual({
      errorCode: ErrorCode.NONE,
      topics: [
        { name: 'read', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] },
        { name: 'old', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.NONE }] },
        { name: 'missing', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      ],
    });
    expect(store.get('g', 'read', 0)?.offset).toBe(1);
    expect(store.get('g', 'old', 0)).toBeUndefined();
    // An active group of another protocol (Connect, say) is refused whole; an unknown group is not found.
    await activeMember('other', 'connect', Buffer.from('x'));
    expect((await deleteOffsets(groups, 'other', [{ name: 'read', partitionIndexes: [0] }], exists)).errorCode).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect((await deleteOffsets(groups, 'nobody', [{ name: 'read', partitionIndexes: [0] }], exists)).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  test('offset delete: metadata that does not parse counts as subscribing to everything', async () => {
    await activeMember('g', 'consumer', Buffer.from([0]));
    await commit('g', 'any', 0, 1);
    const outcome = await deleteOffsets(groups, 'g', [{ name: 'any', partitionIndexes: [0] }], () => true);
    expect(outcome.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
  });
});
