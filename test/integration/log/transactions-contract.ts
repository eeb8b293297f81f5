/**
 * The write-log contract for transactions: a TransactionalPublisher commits records and a group's positions
 * together, a second publisher of the same transactional id fences the first, and every reader of the port
 * (subscriptions and replays) reads committed records only, whoever wrote the transactions. Run by the same
 * runners as the write-log contract, with each adapter.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { ValueCodec } from '../../../src/log/codec';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import type { LogRecord, OutgoingRecord, Subscription, WriteLog } from '../../../src/log/port';
import { loadSchemas, type ActionEvent } from '../../../src/log/schemas';
import { eventually } from '../../support/topics';
import type { Backend } from './write-log-contract';

const schemas = loadSchemas();
const unique = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 8)}`;

const action = (topic: string, n: number): OutgoingRecord<ActionEvent> => ({
  topic,
  key: `acme/customer/c-${n}`,
  schema: schemas.ActionEvent,
  value: {
    eventId: `e-${n}`,
    deltaId: `d-${n}`,
    tenant: 'acme',
    entity: 'customer',
    operation: 'create',
    key: `c-${n}`,
    version: 1,
    payload: null,
    user: 'u-1',
    datacenter: 'dc1',
    occurredAt: 1767225600000,
    emittedAt: 1767225600500,
  },
});

export function describeTransactionsContract(name: string, start: () => Promise<Backend | undefined>): void {
  describe(`write-log transactions: ${name}`, () => {
    let backend: Backend;
    let log: WriteLog;
    const subscriptions: Subscription[] = [];

    beforeAll(async () => {
      const started = await start();
      if (!started) throw new Error('backend did not start');
      backend = started;
    });
    afterAll(async () => {
      await backend?.stop();
    });
    beforeEach(async () => {
      const rejectionsTopic = unique('rejections');
      log = backend.openLog
        ? await backend.openLog({ rejectionsTopic })
        : await openKafkaWriteLog({ brokers: backend.brokers, registryUrl: backend.registryUrl, rejectionsTopic });
      await log.createTopics([{ topic: rejectionsTopic }]);
    });
    afterEach(async () => {
      await Promise.allSettled(subscriptions.splice(0).map((s) => s.stop()));
      await log.close();
    });

    const replayOnce = async (topic: string): Promise<{ ids: string[]; rejected: number }> => {
      const ids: string[] = [];
      const result = await log.replay<ActionEvent>({
        topic,
        readerSchema: schemas.ActionEvent,
        handleBatch: async (batch) => void ids.push(...batch.records.map((r) => r.value.eventId)),
      });
      return { ids: ids.sort(), rejected: result.rejected };
    };
    /**
     * What a read_committed replay hands over once it holds at least `expected` records. Kafka answers EndTxn once
     * the decision is logged and writes the commit markers after, so a replay right after a commit can still end
     * before its last records (a 3-node run read 14 of 15); the embedded broker's markers are written first.
     */
    const replayed = (topic: string, expected: number): Promise<{ ids: string[]; rejected: number }> =>
      eventually(
        () => replayOnce(topic),
        (r) => r.ids.length >= expected,
      );
    const collect = async (topic: string, groupId: string): Promise<LogRecord<ActionEvent>[]> => {
      const seen: LogRecord<ActionEvent>[] = [];
      subscriptions.push(
        await log.subscribe<ActionEvent>({
          groupId,
          topics: [topic],
          readerSchema: schemas.ActionEvent,
          handleBatch: async (batch) => void seen.push(...batch.records),
        }),
      );
      return seen;
    };

    test('records and consumed positions commit together; read_committed readers see each record once, the group resumes after the positions', async () => {
      const input = unique('in');
      const output = unique('out');
      await log.createTopics([{ topic: input }, { topic: output, partitions: 2 }]);
      await log.publish([1, 2, 3].map((n) => action(input, n)));
      const groupId = unique('emitter');
      const transactions = await log.openTransactionalPublisher(unique('txn'));
      try {
        await transactions.publishAndCommit([action(output, 1), action(output, 2)], { groupId, positions: [{ topic: input, partition: 0, offset: '2' }] });
        await transactions.publishAndCommit([action(output, 3)], { groupId, positions: [{ topic: input, partition: 0, offset: '3' }] });
      } finally {
        await transactions.close();
      }
      // Markers are no records: a reader neither hands them over nor rejects them.
      expect(await replayed(output, 3)).toEqual({ ids: ['e-1', 'e-2', 'e-3'], rejected: 0 });
      const seen = await collect(output, unique('reader'));
      await eventually(
        async () => seen.length,
        (n) => n >= 3,
      );
      // The group starts where the last transaction left it: only what is published after.
      const resumed = await collect(input, groupId);
      await log.publish([action(input, 4)]);
      await eventually(
        async () => resumed.map((r) => r.offset),
        (offsets) => offsets.length >= 1,
      );
      expect(resumed.map((r) => r.offset)).toEqual(['3']);
      expect(seen.map((r) => r.value.eventId).sort()).toEqual(['e-1', 'e-2', 'e-3']);
    });

    test('a second publisher of the same transactional id fences the first: the fenced call commits nothing, neither records nor positions', async () => {
      const input = unique('in');
      const output = unique('out');
      await log.createTopics([{ topic: input }, { topic: output }]);
      await log.publish([1, 2].map((n) => action(input, n)));
      const groupId = unique('emitter');
      const id = unique('txn');
      const first = await log.openTransactionalPublisher(id);
      await first.publishAndCommit([action(output, 1)], { groupId, positions: [{ topic: input, partition: 0, offset: '1' }] });
      const second = await log.openTransactionalPublisher(id);
      try {
        await expect(first.publishAndCommit([action(output, 2)], { groupId, positions: [{ topic: input, partition: 0, offset: '2' }] })).rejects.toThrow();
        expect((await replayed(output, 1)).ids).toEqual(['e-1']);
        const resumed = await collect(input, groupId);
        await eventually(
          async () => resumed.length,
          (n) => n >= 1,
        );
        expect(resumed.map((r) => r.offset)).toEqual(['1']);
        await second.publishAndCommit([action(output, 3)], { groupId: unique('other'), positions: [] });
        expect((await replayed(output, 2)).ids).toEqual(['e-1', 'e-3']);
      } finally {
        await Promise.allSettled([first.close(), second.close()]);
      }
    });

    test('calls made at once take turns: each commits its own records once', async () => {
      const output = unique('out');
      await log.createTopics([{ topic: output, partitions: 3 }]);
      const transactions = await log.openTransactionalPublisher(unique('txn'));
      try {
        await Promise.all(
          [0, 1, 2, 3, 4].map((round) =>
            transactions.publishAndCommit(
              [1, 2, 3].map((n) => action(output, round * 10 + n)),
              { groupId: unique('emitter'), positions: [] },
            ),
          ),
        );
      } finally {
        await transactions.close();
      }
      const { ids } = await replayed(output, 15);
      expect(ids).toHaveLength(15);
      expect(new Set(ids).size).toBe(15);
    });

    test("a Kafka client's aborted transaction is never handed over; its committed one is, once", async () => {
      const topic = unique('external');
      await log.createTopics([{ topic }]);
      const codec = new ValueCodec({ registryUrl: backend.registryUrl });
      const value = async (n: number): Promise<Buffer> => codec.encode(`${topic}-value`, schemas.ActionEvent, action(topic, n).value);
      const kafka = new Kafka({ clientId: 'contract-txn', brokers: [...backend.brokers], logLevel: logLevel.NOTHING });
      const producer = kafka.producer({ transactionalId: unique('external-txn'), idempotent: true, maxInFlightRequests: 1 });
      await producer.connect();
      try {
        const aborted = await producer.transaction();
        await aborted.send({
          topic,
          messages: [
            { key: 'k', value: await value(1) },
            { key: 'k', value: await value(2) },
          ],
        });
        await aborted.abort();
        const committed = await producer.transaction();
        await committed.send({ topic, messages: [{ key: 'k', value: await value(3) }] });
        await committed.commit();
      } finally {
        await producer.disconnect();
      }
      const seen = await collect(topic, unique('reader'));
      await eventually(
        async () => seen.length,
        (n) => n >= 1,
      );
      expect(await replayed(topic, 1)).toEqual({ ids: ['e-3'], rejected: 0 });
      expect(seen.map((r) => r.value.eventId)).toEqual(['e-3']);
    });
  });
}
