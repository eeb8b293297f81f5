/**
 * The Kafka publisher hands kafkajs one partition per send: kafkajs retries a send spanning several brokers by
 * sending again to brokers still in flight, under new sequence numbers, which duplicates records even on an
 * idempotent or transactional producer. Tested with a recording producer; the contract runs it on Kafka 4.
 */
import type { PartitionMetadata, ProducerBatch, RecordMetadata } from 'kafkajs';
import type { ValueCodec } from '../../../../src/log/codec';
import { Publisher } from '../../../../src/log/kafka/publisher';
import type { RenewableAdmin } from '../../../../src/log/kafka/renewable-admin';
import { loadSchemas } from '../../../../src/log/schemas';

const schemas = loadSchemas();
const partitions = (count: number): PartitionMetadata[] =>
  Array.from({ length: count }, (_, partition) => ({ partitionErrorCode: 0, partitionId: partition, leader: partition % 2, replicas: [], isr: [] }));

function recordingProducer(fail?: { partition: number }): {
  sends: ProducerBatch[];
  settled: number[];
  sendBatch: (b: ProducerBatch) => Promise<RecordMetadata[]>;
} {
  const sends: ProducerBatch[] = [];
  const settled: number[] = [];
  const next = new Map<string, number>();
  return {
    sends,
    settled,
    sendBatch: async (batch) => {
      sends.push(batch);
      const { topic, messages } = batch.topicMessages?.[0] ?? { topic: '', messages: [] };
      const partition = messages[0]?.partition ?? -1;
      await new Promise((resolve) => setTimeout(resolve, partition === fail?.partition ? 1 : 20));
      settled.push(partition);
      if (partition === fail?.partition) throw new Error(`partition ${partition} refused`);
      const slot = `${topic}/${partition}`;
      const base = next.get(slot) ?? 100 * partition;
      next.set(slot, base + messages.length);
      return [{ topicName: topic, partition, errorCode: 0, baseOffset: String(base) }];
    },
  };
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
    const producer = recordingProducer({ partition: 1 });
    await expect(publisherOn(producer).publish([record(1, 0), record(2, 1), record(3, 2)])).rejects.toThrow('partition 1 refused');
    expect(producer.settled.sort()).toEqual([0, 1, 2]);
  });
});
