import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { GroupCoordinator } from '../../../src/embedded/kafka/group/coordinator';
import { OffsetExpiry } from '../../../src/embedded/kafka/group/offset-expiry';
import { OffsetStore } from '../../../src/embedded/kafka/group/offset-store';
import { listGroups } from '../../../src/embedded/kafka/group/group-admin';

const RETENTION = 10_000;

let dir: string;
let store: OffsetStore;
let coordinator: GroupCoordinator;
let expiry: OffsetExpiry;
let now: jest.SpyInstance<number, []>;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-expiry-'));
  store = OffsetStore.open(dir, 'never', 1000, silentLogger());
  coordinator = new GroupCoordinator(
    store,
    { minSessionTimeoutMs: 100, maxSessionTimeoutMs: 60_000, initialRebalanceDelayMs: 0, sessionCheckIntervalMs: 60_000 },
    silentLogger(),
  );
  // The timer never fires in a test: each pass is run by hand at a chosen time.
  expiry = new OffsetExpiry(coordinator, { retentionMs: RETENTION, checkIntervalMs: 3_600_000, retained: (g) => g.startsWith('own-') }, silentLogger());
  now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
});
afterEach(async () => {
  now.mockRestore();
  await expiry.close();
  coordinator.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const entry = (topic: string, partition: number, offset: number) => ({ topic, partition, offset, leaderEpoch: -1, metadata: null, commitTimestamp: 0 });
const commitAt = async (at: number, group: string, partitions: number[]) => {
  now.mockReturnValue(at);
  await store.commit(
    group,
    partitions.map((p) => entry('t', p, 10)),
  );
};
const partitionsOf = (group: string) => [...(store.all(group).get('t')?.keys() ?? [])].sort();

/** A member of `groupId` that has joined and synced (the group is Stable). */
async function member(groupId: string): Promise<string> {
  const joined = await coordinator.join({
    groupId,
    sessionTimeoutMs: 60_000,
    rebalanceTimeoutMs: 2_000,
    memberId: '',
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    clientId: 'c',
    clientHost: '127.0.0.1',
  });
  await coordinator.sync({ groupId, generationId: joined.generationId, memberId: joined.memberId }, []);
  return joined.memberId;
}

describe('expiry of committed offsets', () => {
  test('a group whose last member left keeps every offset until the retention passed since then, then the group is gone', async () => {
    const id = await member('g');
    await commitAt(1_000, 'g', [0]);
    await commitAt(500_000, 'g', [1]);
    now.mockReturnValue(600_000);
    coordinator.leave('g', id);
    expect(store.emptiedSince('g')).toBe(600_000);

    await expiry.run(600_000 + RETENTION - 1);
    expect(partitionsOf('g')).toEqual([0, 1]); // the old commit counts from the emptying, not from itself
    await expiry.run(600_000 + RETENTION);
    expect(partitionsOf('g')).toEqual([]);
    expect(coordinator.peek('g')).toBeUndefined();
    expect(listGroups(coordinator).map((l) => l.groupId)).not.toContain('g');
  });

  test('a group with a member keeps offsets committed long before the retention', async () => {
    await member('g');
    await commitAt(1_000, 'g', [0, 1]);
    await expiry.run(1_000 + 100 * RETENTION);
    expect(partitionsOf('g')).toEqual([0, 1]);
    expect(coordinator.describe('g')?.state).toBe('Stable');
  });

  test('offsets committed without ever a member (a standalone consumer) expire one by one, the retention after their own commit', async () => {
    await commitAt(1_000, 'standalone', [0]);
    await commitAt(5_000, 'standalone', [1]);
    await expiry.run(1_000 + RETENTION);
    expect(partitionsOf('standalone')).toEqual([1]);
    await expiry.run(5_000 + RETENTION);
    expect(store.hasGroup('standalone')).toBe(false);
  });

  test('retained groups keep their offsets without members', async () => {
    const id = await member('own-projector');
    await commitAt(1_000, 'own-projector', [0]);
    coordinator.leave('own-projector', id);
    await expiry.run(1_000 + 100 * RETENTION);
    expect(partitionsOf('own-projector')).toEqual([0]);
  });

  test('an empty group without offsets is forgotten at the next pass', async () => {
    const id = await member('joined-only');
    coordinator.leave('joined-only', id);
    expect(listGroups(coordinator).map((l) => l.groupId)).toContain('joined-only');
    await expiry.run(Date.now());
    expect(listGroups(coordinator).map((l) => l.groupId)).not.toContain('joined-only');
    expect(store.emptiedSince('joined-only')).toBeUndefined();
  });
});
