import type { Admin, Consumer } from 'kafkajs';
import { type TestBroker, consumerThatRead, startTestBroker } from './harness';

/**
 * Issue 33, item 4: committed offsets of a group without members expire `offsets.retention.minutes` after the group
 * became empty (Kafka ≥ 2.1, KIP-211), and the group, empty with no offsets, is gone. A group with members keeps
 * its offsets. The retention is in milliseconds here (the broker's own option; the service's setting is minutes).
 */
const RETENTION_MS = 1_500;
const CHECK_MS = 100;
const TOPIC = 'retained';
const RECORDS = 12;

describe('embedded kafka: committed offsets of empty groups expire', () => {
  let broker: TestBroker;
  let admin: Admin;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    broker = await startTestBroker({ offsetsRetentionMs: RETENTION_MS, offsetsRetentionCheckIntervalMs: CHECK_MS, retainedGroup: (g) => g.startsWith('own-') });
    admin = broker.client('admin').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }] });
    const producer = broker.client('producer').producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, messages: Array.from({ length: RECORDS }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    await producer.disconnect();
  });
  afterAll(async () => {
    for (const c of consumers) await c.disconnect();
    await admin?.disconnect();
    await broker?.stop();
  });

  /** The group's committed offset per partition (-1 where none), as OffsetFetch answers. */
  const committed = async (groupId: string): Promise<number[]> => {
    const [topic] = await admin.fetchOffsets({ groupId, topics: [TOPIC] });
    return (topic?.partitions ?? []).sort((a, b) => a.partition - b.partition).map((p) => Number(p.offset));
  };
  const listed = async (): Promise<string[]> => (await admin.listGroups()).groups.map((g) => g.groupId);
  const state = async (groupId: string): Promise<string | undefined> => (await admin.describeGroups([groupId])).groups[0]?.state;

  test('a group whose members left: offsets kept until the retention passes, then OffsetFetch answers -1 and the group is gone', async () => {
    const consumer = await consumerThatRead(broker, 'leavers', 'leavers', TOPIC, RECORDS);
    await eventuallyCommitted('leavers');
    await consumer.disconnect();
    const emptiedAt = Date.now();
    expect(await committed('leavers')).not.toEqual([-1, -1]);
    expect(await listed()).toContain('leavers');
    expect(await state('leavers')).toBe('Empty');

    await eventually(async () => (await committed('leavers')).every((o) => o === -1), RETENTION_MS + 5_000, 'the offsets to expire');
    expect(Date.now() - emptiedAt).toBeGreaterThanOrEqual(RETENTION_MS);
    expect(await listed()).not.toContain('leavers');
    expect(await state('leavers')).toBe('Dead');
  });

  test('a group with a live member keeps its offsets past the retention', async () => {
    const consumer = await consumerThatRead(broker, 'stayers', 'stayers', TOPIC, RECORDS);
    consumers.push(consumer);
    const offsets = await eventuallyCommitted('stayers');
    await new Promise((resolve) => setTimeout(resolve, 3 * RETENTION_MS));
    expect(await committed('stayers')).toEqual(offsets);
    expect(await listed()).toContain('stayers');
    expect(await state('stayers')).toBe('Stable');
  });

  test('a group the broker is told to retain (the service’s own) keeps its offsets after its members left', async () => {
    const consumer = await consumerThatRead(broker, 'own-projector', 'own-projector', TOPIC, RECORDS);
    const offsets = await eventuallyCommitted('own-projector');
    await consumer.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 3 * RETENTION_MS));
    expect(await committed('own-projector')).toEqual(offsets);
    expect(await listed()).toContain('own-projector');
  });

  test('the time a group became empty survives a restart: a broker stopped for longer than the retention expires the offsets at once', async () => {
    const consumer = await consumerThatRead(broker, 'restarted', 'restarted', TOPIC, RECORDS);
    await eventuallyCommitted('restarted');
    await consumer.disconnect();
    await admin.disconnect();
    await broker.kafka.stop();
    await new Promise((resolve) => setTimeout(resolve, RETENTION_MS + 200));
    await broker.restart();
    const restartedAt = Date.now();
    admin = broker.client('admin').admin();
    await admin.connect();
    // Had the broker counted the emptiness from its restart, the offsets would stay for another RETENTION_MS.
    await eventually(async () => (await committed('restarted')).every((o) => o === -1), RETENTION_MS, 'the offsets to expire after the restart');
    expect(Date.now() - restartedAt).toBeLessThan(RETENTION_MS);
    expect(await listed()).not.toContain('restarted');
  });

  async function eventuallyCommitted(groupId: string): Promise<number[]> {
    let offsets: number[] = [];
    await eventually(
      async () => {
        offsets = await committed(groupId);
        return offsets.reduce((a, b) => a + Math.max(b, 0), 0) === RECORDS;
      },
      20_000,
      `${groupId} to commit every record`,
    );
    return offsets;
  }
});

async function eventually(cond: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
