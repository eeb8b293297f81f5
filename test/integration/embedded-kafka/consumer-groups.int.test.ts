import type { Consumer, Kafka } from 'kafkajs';
import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';

/** A record a member processed and whose offset commit the broker acknowledged. */
interface Committed {
  member: string;
  partition: number;
  offset: number;
  value: string;
}

/**
 * Members process a record, commit offset+1 synchronously, and count the record only once the commit is
 * acknowledged. Across rebalances every record must be counted exactly once.
 */
async function startMember(kafka: Kafka, name: string, topic: string, committed: Committed[], assignments: Map<string, number[]>): Promise<Consumer> {
  const consumer = kafka.consumer({ groupId: 'rebalancers', ...FAST_GROUP });
  consumer.on(consumer.events.GROUP_JOIN, (e) => assignments.set(name, e.payload.memberAssignment[topic] ?? []));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      const offset = Number(message.offset);
      await consumer.commitOffsets([{ topic, partition, offset: String(offset + 1) }]);
      committed.push({ member: name, partition, offset, value: message.value!.toString() });
    },
  });
  return consumer;
}

describe('embedded kafka: consumer groups', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startTestBroker();
  });
  afterAll(() => broker.stop());

  test('a group of 2 then 3 members rebalances without losing or duplicating committed records', async () => {
    const kafka = broker.client('rebalance');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'work', numPartitions: 6 }] });
    const producer = kafka.producer();
    await producer.connect();
    let produced = 0;
    const produce = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i += 10) {
        await producer.send({ topic: 'work', messages: Array.from({ length: 10 }, () => ({ key: `k${produced % 31}`, value: `m${produced++}` })) });
      }
    };

    const committed: Committed[] = [];
    const assignments = new Map<string, number[]>();
    await produce(200);
    const a = await startMember(kafka, 'a', 'work', committed, assignments);
    const b = await startMember(kafka, 'b', 'work', committed, assignments);
    await waitFor(() => assignments.get('a')?.length === 3 && assignments.get('b')?.length === 3, 20_000, 'a and b sharing the partitions');
    await waitFor(() => committed.length >= 50, 20_000, 'records committed by the pair');
    await produce(200);
    const c = await startMember(kafka, 'c', 'work', committed, assignments);
    await waitFor(() => ['a', 'b', 'c'].every((m) => assignments.get(m)?.length === 2), 20_000, 'three members with two partitions each');
    expect(new Set(['a', 'b', 'c'].flatMap((m) => assignments.get(m)!)).size).toBe(6);
    await produce(200);
    await waitFor(() => new Set(committed.map((x) => x.value)).size >= produced, 30_000, 'every record committed');
    // Keep going a little: a late duplicate would show up here.
    await produce(100);
    await waitFor(() => new Set(committed.map((x) => x.value)).size >= produced, 20_000, 'the tail committed');
    await new Promise((r) => setTimeout(r, 500));

    const values = committed.map((x) => x.value);
    expect(new Set(values).size).toBe(produced);
    expect(values.length).toBe(produced);
    expect(committed.some((x) => x.member === 'c')).toBe(true);

    const offsets = await admin.fetchOffsets({ groupId: 'rebalancers', topics: ['work'] });
    const ends = await admin.fetchTopicOffsets('work');
    for (const p of offsets[0]!.partitions) expect(p.offset).toBe(ends.find((e) => e.partition === p.partition)!.high);

    await Promise.all([a.disconnect(), b.disconnect(), c.disconnect()]);
    await producer.disconnect();
    await admin.disconnect();
  });

  test('a restarted consumer resumes from its committed offsets', async () => {
    const kafka = broker.client('resume');
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'resume', messages: Array.from({ length: 30 }, (_, i) => ({ value: `first-${i}` })) });

    const seen: string[] = [];
    const run = async (): Promise<Consumer> => {
      const consumer = kafka.consumer({ groupId: 'resumers', ...FAST_GROUP });
      await consumer.connect();
      await consumer.subscribe({ topic: 'resume', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
      return consumer;
    };
    let consumer = await run();
    await waitFor(() => seen.length >= 30, 20_000, 'first 30');
    await consumer.disconnect(); // commits what was processed

    await producer.send({ topic: 'resume', messages: Array.from({ length: 20 }, (_, i) => ({ value: `second-${i}` })) });
    seen.length = 0;
    consumer = await run();
    await waitFor(() => seen.length >= 20, 20_000, 'next 20');
    await new Promise((r) => setTimeout(r, 300));
    await consumer.disconnect();
    await producer.disconnect();
    expect(seen.sort()).toEqual(Array.from({ length: 20 }, (_, i) => `second-${i}`).sort());
  });
});
