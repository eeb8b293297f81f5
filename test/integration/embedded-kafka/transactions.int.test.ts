import type { Consumer, Kafka } from 'kafkajs';
import { Reader } from '../../../src/embedded/kafka/protocol/reader';
import { Writer } from '../../../src/embedded/kafka/protocol/writer';
import { type TestBroker, FAST_GROUP, startTestBroker, waitFor } from './harness';
import { RawClient } from './raw-client';

/** Every value of `topic` a consumer of that isolation reads until `expected` arrive (and a short settle after). */
async function readAll(kafka: Kafka, topic: string, readUncommitted: boolean, expected: number, settleMs = 500): Promise<string[]> {
  const consumer: Consumer = kafka.consumer({ groupId: `reader-${topic}-${readUncommitted}-${Date.now()}`, readUncommitted, ...FAST_GROUP });
  const values: string[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => void values.push(message.value!.toString()) });
  await waitFor(() => values.length >= expected, 20_000, `${expected} records of ${topic}`);
  await new Promise((r) => setTimeout(r, settleMs));
  await consumer.disconnect();
  return values.sort();
}

async function createTopics(kafka: Kafka, ...topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 2 })) });
  await admin.disconnect();
}

describe('embedded kafka: transactions with kafkajs', () => {
  let broker: TestBroker;
  afterEach(() => broker?.stop());

  test('read_committed sees committed transactions only; read_uncommitted sees both, never the markers', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('txn');
    await createTopics(kafka, 'txn-a', 'txn-b');
    const producer = kafka.producer({ transactionalId: 'tx-1', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();

    const committed = await producer.transaction();
    await committed.send({
      topic: 'txn-a',
      messages: [
        { key: 'k1', value: 'c1' },
        { key: 'k2', value: 'c2' },
      ],
    });
    await committed.send({ topic: 'txn-b', messages: [{ key: 'k1', value: 'c3' }] });
    await committed.commit();

    const aborted = await producer.transaction();
    await aborted.send({
      topic: 'txn-a',
      messages: [
        { key: 'k1', value: 'a1' },
        { key: 'k2', value: 'a2' },
      ],
    });
    await aborted.send({ topic: 'txn-b', messages: [{ key: 'k2', value: 'a3' }] });
    await aborted.abort();

    const after = await producer.transaction();
    await after.send({ topic: 'txn-a', messages: [{ key: 'k1', value: 'c4' }] });
    await after.commit();
    await producer.disconnect();

    expect(await readAll(kafka, 'txn-a', false, 3)).toEqual(['c1', 'c2', 'c4']);
    expect(await readAll(kafka, 'txn-b', false, 1)).toEqual(['c3']);
    expect(await readAll(kafka, 'txn-a', true, 5)).toEqual(['a1', 'a2', 'c1', 'c2', 'c4']);
  });

  test('an open transaction holds read_committed readers back at the last stable offset', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('lso');
    await createTopics(kafka, 'lso');
    const producer = kafka.producer({ transactionalId: 'tx-lso', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const open = await producer.transaction();
    await open.send({ topic: 'lso', messages: [{ key: 'k', value: 'pending' }] });

    const plain = kafka.producer();
    await plain.connect();
    await plain.send({ topic: 'lso', messages: [{ key: 'k', value: 'after' }] });
    await plain.disconnect();

    // kafkajs's admin lists offsets read_committed: latest is the last stable offset.
    const admin = kafka.admin();
    await admin.connect();
    const latest = async (): Promise<string[]> => (await admin.fetchTopicOffsets('lso')).map((o) => o.high).sort();
    expect(await latest()).toEqual(['0', '0']);

    expect(await readAll(kafka, 'lso', true, 2)).toEqual(['after', 'pending']);
    const committedReader = readAll(kafka, 'lso', false, 2);
    await new Promise((r) => setTimeout(r, 1500));
    await open.commit();
    expect(await committedReader).toEqual(['after', 'pending']);
    expect(await latest()).toEqual(['0', '3']);
    await admin.disconnect();
    await producer.disconnect();
  });

  test('a second producer with the same transactional id fences the first; its transaction is aborted', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('fence', 2);
    await createTopics(kafka, 'fenced');
    const zombie = kafka.producer({ transactionalId: 'tx-z', idempotent: true, maxInFlightRequests: 1 });
    await zombie.connect();
    const zombieTxn = await zombie.transaction();
    await zombieTxn.send({ topic: 'fenced', messages: [{ key: 'k', value: 'zombie' }] });

    const successor = kafka.producer({ transactionalId: 'tx-z', idempotent: true, maxInFlightRequests: 1 });
    await successor.connect();
    const txn = await successor.transaction();
    await txn.send({ topic: 'fenced', messages: [{ key: 'k', value: 'successor' }] });
    await txn.commit();

    await expect(zombieTxn.send({ topic: 'fenced', messages: [{ key: 'k', value: 'late' }] })).rejects.toThrow();
    await expect(zombieTxn.commit()).rejects.toThrow(/epoch|fenc/i);
    await zombie.disconnect();
    await successor.disconnect();
    expect(await readAll(kafka, 'fenced', false, 1)).toEqual(['successor']);
  });

  test('sendOffsets: the group sees the offsets only when the transaction commits', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('offsets');
    await createTopics(kafka, 'in', 'out');
    const admin = kafka.admin();
    await admin.connect();
    const committedOffsets = async (): Promise<string[]> =>
      (await admin.fetchOffsets({ groupId: 'pipeline', topics: ['in'] }))[0]!.partitions.map((p) => p.offset).sort();

    const producer = kafka.producer({ transactionalId: 'tx-o', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const aborted = await producer.transaction();
    await aborted.send({ topic: 'out', messages: [{ key: 'k', value: 'x' }] });
    await aborted.sendOffsets({ consumerGroupId: 'pipeline', topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '5' }] }] });
    await aborted.abort();
    expect(await committedOffsets()).toEqual(['-1', '-1']);

    const txn = await producer.transaction();
    await txn.send({ topic: 'out', messages: [{ key: 'k', value: 'y' }] });
    await txn.sendOffsets({ consumerGroupId: 'pipeline', topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '7' }] }] });
    expect(await committedOffsets()).toEqual(['-1', '-1']);
    await txn.commit();
    expect(await committedOffsets()).toEqual(['-1', '7']);
    await producer.disconnect();
    await admin.disconnect();
  });

  test('a transaction open past its timeout is aborted and its producer fenced', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('timeout', 1);
    await createTopics(kafka, 'slow');
    const producer = kafka.producer({ transactionalId: 'tx-t', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 1000 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic: 'slow', messages: [{ key: 'k', value: 'too slow' }] });
    await waitFor(() => stateOf(broker, 'tx-t') === 'CompleteAbort', 10_000, 'the timeout abort');
    await expect(txn.commit()).rejects.toThrow(/epoch|fenc/i);
    await producer.disconnect();

    const plain = kafka.producer();
    await plain.connect();
    await plain.send({ topic: 'slow', messages: [{ key: 'k', value: 'visible' }] });
    await plain.disconnect();
    expect(await readAll(kafka, 'slow', false, 1)).toEqual(['visible']);
  });

  test('operators list and describe transactions (ListTransactions, DescribeTransactions)', async () => {
    broker = await startTestBroker();
    const kafka = broker.client('ops');
    await createTopics(kafka, 'ops');
    const producer = kafka.producer({ transactionalId: 'tx-ops', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic: 'ops', messages: [{ key: 'k', value: 'v' }] });

    const raw = await RawClient.connect(broker.kafka.port);
    const listed = new Reader(await raw.request(66, 0, 1, new Writer().uvarint(2).compactString('Ongoing').uvarint(1).uvarint(0).toBuffer(), true), 4);
    listed.skipTaggedFields();
    expect([listed.int32(), listed.int16(), listed.compactArray((r) => r.compactString())]).toEqual([0, 0, []]);
    const states = listed.compactArray((r) => {
      const state = [r.compactString(), r.int64(), r.compactString()];
      r.skipTaggedFields();
      return state;
    });
    expect(states).toEqual([['tx-ops', expect.any(Number), 'Ongoing']]);

    const described = new Reader(
      await raw.request(65, 0, 2, new Writer().uvarint(3).compactString('tx-ops').compactString('none').uvarint(0).toBuffer(), true),
      4,
    );
    described.skipTaggedFields();
    described.int32();
    const [ongoing, unknown] = described.compactArray((r) => {
      const t = {
        errorCode: r.int16(),
        id: r.compactString(),
        state: r.compactString(),
        timeoutMs: r.int32(),
        startMs: r.int64(),
        pid: r.int64(),
        epoch: r.int32(),
      };
      const topics = r.compactArray((r) => {
        const topic = [r.compactString(), r.compactArray((r) => r.int32())];
        r.skipTaggedFields();
        return topic;
      });
      r.skipTaggedFields();
      return { ...t, topics };
    });
    expect(ongoing).toMatchObject({ errorCode: 0, id: 'tx-ops', state: 'Ongoing', epoch: 0, topics: [['ops', [expect.any(Number)]]] });
    expect(ongoing!.startMs).toBeGreaterThan(0);
    expect(unknown).toMatchObject({ errorCode: 105, id: 'none' });
    raw.close();
    await txn.abort();
    await producer.disconnect();
  });
});

function stateOf(broker: TestBroker, transactionalId: string): string | undefined {
  return broker.kafka.parts.transactions.states().find((s) => s.transactionalId === transactionalId)?.status;
}
