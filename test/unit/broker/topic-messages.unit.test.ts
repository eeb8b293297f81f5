import type { LogTopicsService } from '../../../src/broker/log-topics';
import { MAX_MESSAGES, TopicMessagesService } from '../../../src/broker/topic-messages';
import { DeltabrokerError } from '../../../src/errors';
import type { LogRecord, ReplayOptions, TopicOffsets } from '../../../src/log';

const TOPIC = 'acme.merchant_account.events';

/** A log of one topic whose partitions hold `values`, read from where the service asks. */
function service(values: Record<number, unknown[]>, visible = true) {
  const asked: { partition: number; offset: string }[][] = [];
  const offsets: TopicOffsets[] = Object.entries(values).map(([p, v]) => ({ partition: Number(p), low: '0', high: String(v.length) }));
  const log = {
    topicOffsets: async () => offsets,
    replay: async <T>(o: ReplayOptions<T>) => {
      if (o.from?.kind !== 'offsets') throw new Error('expected offsets');
      asked.push([...o.from.offsets]);
      for (const { partition, offset } of o.from.offsets) {
        const records = (values[partition] ?? []).slice(Number(offset)).map((value, i): LogRecord<T> => ({
          topic: TOPIC,
          partition,
          offset: String(Number(offset) + i),
          key: null,
          value: value as T,
          headers: {},
          timestamp: Date.UTC(2026, 0, 1, 0, 0, Number(offset) + i) + partition,
          schemaId: 7,
        }));
        if (records.length > 0) await o.handleBatch({ topic: TOPIC, partition, records, rejected: 0, highWatermark: String(records.length) });
      }
      return { records: 0, rejected: 0, endOffsets: [] };
    },
  };
  const topics = {
    requireVisible: async () => {
      if (!visible) throw new DeltabrokerError('DB_NOT_FOUND', 'no topic', { field: 'topic' });
    },
  } as unknown as LogTopicsService;
  const messages = new TopicMessagesService({ topics, log, writerSchemas: async (id) => ({ type: 'record', name: `S${id}` }) });
  return { messages, asked };
}

describe("a tenant's latest messages of one of its topics", () => {
  test('the last `limit` of each partition read, the newest `limit` answered, each schema once', async () => {
    const record = (n: number) => ({ tenant: 'acme', n });
    const { messages, asked } = service({ 0: [1, 2, 3, 4].map(record), 1: [5, 6].map(record) });
    const answer = await messages.latest('acme', TOPIC, 3);
    expect(asked).toEqual([
      [
        { partition: 0, offset: '1' },
        { partition: 1, offset: '0' },
      ],
    ]);
    expect(answer.messages.map((m) => [m.partition, m.offset])).toEqual([
      [0, '3'],
      [0, '2'],
      [1, '1'],
    ]);
    expect(answer.schemas).toEqual({ 7: { type: 'record', name: 'S7' } });
  });

  test('a record naming another tenant is left out; bytes show as base64; the limit is kept within 1-100', async () => {
    const { messages, asked } = service({ 0: [{ tenant: 'globex' }, { tenant: 'acme', raw: Buffer.from('hi') }] });
    const answer = await messages.latest('acme', TOPIC, 1000);
    expect(answer.messages.map((m) => m.value)).toEqual([{ tenant: 'acme', raw: 'aGk=' }]);
    expect(MAX_MESSAGES).toBe(100);
    expect(asked[0]).toEqual([{ partition: 0, offset: '0' }]);
  });

  test('a topic outside the tenant is not read at all', async () => {
    const { messages, asked } = service({ 0: [{ tenant: 'acme' }] }, false);
    await expect(messages.latest('globex', TOPIC, 5)).rejects.toMatchObject({ code: 'DB_NOT_FOUND' });
    expect(asked).toEqual([]);
  });
});
