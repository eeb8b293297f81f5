/**
 * How the Kafka publisher hands records to kafkajs, whose retries write a record twice, or drop one, on an
 * idempotent or transactional producer unless each send holds one partition and the log producer's sends to a
 * partition take turns (see src/log/kafka/publisher.ts). Tested with a recording producer; the write-log
 * contract runs the publisher on Kafka 4.
 */
import type { PartitionMetadata, ProducerBatch, RecordMetadata } from 'kafkajs';
import type { ValueCodec } from '../../../../src/log/codec';
import { Publisher } from '../../../../src/log/kafka/publisher';
import type { RenewableAdmin } from '../../../../src/log/kafka/renewable-admin';
import { loadSchemas } from '../../../../src/log/schemas';

const schemas = loadSchemas();
const partitions = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partition) => ({ partitionErrorCode: 0, partitionId: partition, leader: partition % 2, replicas: [], isr: [] }));

/** A producer that notes when each send starts and ends; a send whose first record is in `refuse` fails. */
function recordingProducer(refuse: readonly string[] = []) {
  const sends: ProducerBatch[] = [];
  const events: string[] = [];
  const next = new Map<string, number>();
  const sendBatch = async (batch: ProducerBatch): Promise<RecordMetadata[]> => {
    sends.push(batch);
    const { topic, messages } = batch.topicMessages?.[0] ?? { topic: '', messages: [] };
    const partition = messages[0]?.partition ?? -1;
    const first = String(messages[0]?.value);
    events.push(`start ${first}`);
    await new Promise((resolve) => setTimeout(resolve, refuse.includes(first) ? 1 : 15));
    events.push(`end ${first}`);
    if (refuse.includes(first)) throw new Error(`send of ${first} refused`);
    const slot = `${topic}/${partition}`;
    const base = next.get(slot) ?? 100 * partition;
    next.set(slot, base + messages.length);
    return [{ topicName: topic, partition, errorCode: 0, baseOffset: String(base) }];
  };
  return { sends, events, sendBatch };
}

function publisherOn(producer: ReturnType<typeof recordingProducer>): Publisher {
  const admin = { use: async (f: (a: unknown) => unknown) => f({ fetchTopicMetadata: async () => ({ topics: [{ name: 't', partitions: partitions(3) }] }) }) };
  const codec = { encode: async (_subject: string, _schema: unknown, value: { eventId: string }) => Buffer.from(value.eventId) };
  return new Publisher(producer as never, admin as unknown as RenewableAdmin, codec as unknown as ValueCodec, (topic) => `${topic}-value`);
}

const record = (n: number, partition: number) => ({
  topic: 't',
  key: `k-${n}`,
  partition,
  schema: schemas.ActionEvent,
  value: { eventId: `e-${n}` } as never,
});

describe('Kafka publisher', () => {
  test('each send to kafkajs holds one topic partition; offsets come back in input order', async () => {
    const producer = recordingProducer();
    const positions = await publisherOn(producer).publish([record(1, 0), record(2, 1), record(3, 0), record(4, 2), record(5, 1)]);
    expect(producer.sends).toHaveLength(3);
    for (const send of producer.sends) {
      expect(send.topicMessages).toHaveLength(1);
      expect(new Set(send.topicMessages?.[0]?.messages.map((m) => m.partition)).size).toBe(1);
    }
    expect(positions).toEqual([
      { topic: 't', partition: 0, offset: '0' },
      { topic: 't', partition: 1, offset: '100' },
      { topic: 't', partition: 0, offset: '1' },
      { topic: 't', partition: 2, offset: '200' },
      { topic: 't', partition: 1, offset: '101' },
    ]);
  });

  test('a failed send fails the publish only once every other send of it has settled', async () => {
    const producer = recordingProducer(['e-2']);
    await expect(publisherOn(producer).publish([record(1, 0), record(2, 1), record(3, 2)])).rejects.toThrow('send of e-2 refused');
    expect(producer.events.filter((e) => e.startsWith('end')).sort()).toEqual(['end e-1', 'end e-2', 'end e-3']);
  });

  test("publishes made at once take turns per partition, even after a failed send; other partitions' sends run beside them", async () => {
    const producer = recordingProducer(['e-1']);
    const publisher = publisherOn(producer);
    const first = publisher.publish([record(1, 0)]);
    const second = publisher.publish([record(2, 0), record(3, 1)]);
    const third = publisher.publish([record(4, 0)]);
    await expect(first).rejects.toThrow('send of e-1 refused');
    await expect(second).resolves.toEqual([
      { topic: 't', partition: 0, offset: '0' },
      { topic: 't', partition: 1, offset: '100' },
    ]);
    await expect(third).resolves.toEqual([{ topic: 't', partition: 0, offset: '1' }]);
    const at = (event: string): number => producer.events.indexOf(event);
    expect(at('start e-2')).toBeGreaterThan(at('end e-1'));
    expect(at('start e-4')).toBeGreaterThan(at('end e-2'));
    expect(at('start e-3')).toBeLessThan(at('end e-1')); // partition 1 waits for no one
  });
});
