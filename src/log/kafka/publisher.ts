/**
 * Publishing: encode each value (registering its schema on first use), pick its partition the way Java
 * clients do (murmur2 of the key), send each partition's records as one batch with acks from all in-sync
 * replicas, and answer each record's partition and offset in input order.
 *
 * Two rules keep kafkajs 2.2's retries from writing a record twice or not at all on an idempotent or
 * transactional producer, which it numbers per partition and numbers again when a request fails:
 * - One partition per kafkajs send. kafkajs retries a send that spans several brokers by sending again to the
 *   brokers whose request is still in flight, under new sequence numbers, so the broker appends those records a
 *   second time (a 3-node Kafka run committed one record of a transaction twice). A send to one partition is one
 *   request, whose retry reuses its sequence numbers, and the broker drops the copy.
 * - One send per partition at a time on the log's producer. kafkajs hands a failed request's sequence numbers to
 *   the next request for that partition; if the broker had written the failed one (its answer lost), a next one
 *   of as many records passes for its retry and is dropped, answered with the first one's offsets.
 * Sends to different partitions run side by side.
 */
import { DeltabrokerError } from '../../errors';
import { Partitioners, type Message, type PartitionMetadata, type Producer, type RecordMetadata } from 'kafkajs';
import type { RenewableAdmin } from './renewable-admin';
import type { OutgoingRecord, LogPosition } from '../port';
import type { SubjectStrategy, ValueCodec } from '../codec';
import { KeyedTurns } from '../../system/keyed-turns';

export class Publisher {
  private readonly partitioner = Partitioners.DefaultPartitioner();
  private readonly partitions = new Map<string, Promise<PartitionMetadata[]>>();
  /** The log producer's sends, in turns per partition. */
  private readonly sends = new KeyedTurns();

  constructor(
    private readonly producer: Producer,
    private readonly admin: RenewableAdmin,
    private readonly codec: ValueCodec,
    private readonly subjectFor: SubjectStrategy,
  ) {}

  /** Sends through the log's producer, or through `via` (a transaction of a transactional producer). */
  async publish(records: readonly OutgoingRecord[], via: Pick<Producer, 'sendBatch'> = this.producer): Promise<LogPosition[]> {
    if (records.length === 0) return [];
    const placed = await Promise.all(
      records.map(async (r) => {
        const value = await this.codec.encode(r.subject ?? this.subjectFor(r.topic), r.schema, r.value);
        const message: Message = {
          key: r.key,
          value,
          ...(r.headers ? { headers: { ...r.headers } } : {}),
          ...(r.timestamp !== undefined ? { timestamp: String(r.timestamp) } : {}),
        };
        const partition = r.partition ?? this.partitioner({ topic: r.topic, partitionMetadata: await this.metadata(r.topic), message });
        return { topic: r.topic, message: { ...message, partition } };
      }),
    );

    const bySlot = new Map<string, { topic: string; messages: Message[] }>();
    for (const p of placed) {
      const slot = `${p.topic}/${p.message.partition}`;
      const batch = bySlot.get(slot) ?? { topic: p.topic, messages: [] };
      batch.messages.push(p.message);
      bySlot.set(slot, batch);
    }
    let metadata;
    try {
      // Settled, not raced: a failed publish returns only once none of its sends is still in flight.
      const answers = await Promise.allSettled(
        [...bySlot].map(([slot, batch]) => {
          const send = (): Promise<RecordMetadata[]> => via.sendBatch({ acks: -1, topicMessages: [batch] });
          // A transaction's sends need no turns: its producer has one transaction, and so one publish, at a time.
          return via === this.producer ? this.sends.run(slot, send) : send();
        }),
      );
      const failed = answers.find((a) => a.status === 'rejected');
      if (failed) throw failed.reason;
      metadata = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
    } catch (e) {
      for (const { topic } of bySlot.values()) this.partitions.delete(topic); // partitions may have changed
      throw e;
    }

    const base = new Map(metadata.map((m) => [`${m.topicName}/${m.partition}`, BigInt(m.baseOffset ?? '-1')]));
    const next = new Map<string, bigint>();
    return placed.map(({ topic, message }) => {
      const slot = `${topic}/${message.partition}`;
      const offset = next.get(slot) ?? base.get(slot);
      if (offset === undefined || offset < 0n) {
        throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `the broker acknowledged no offset for ${slot}`, {
          stage: 'write-log',
          field: 'offset',
          topic,
          partition: message.partition,
        });
      }
      next.set(slot, offset + 1n);
      return { topic, partition: message.partition, offset: offset.toString() };
    });
  }

  private metadata(topic: string): Promise<PartitionMetadata[]> {
    let found = this.partitions.get(topic);
    if (!found) {
      found = this.admin
        .use((admin) => admin.fetchTopicMetadata({ topics: [topic] }))
        .then(({ topics }) => {
          const partitions = topics[0]?.partitions ?? [];
          if (partitions.length === 0)
            throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', `topic ${topic} has no partitions`, {
              stage: 'write-log',
              field: 'topic',
              rule: 'partitions',
              topic,
            });
          return partitions;
        });
      this.partitions.set(topic, found);
      found.catch(() => this.partitions.delete(topic));
    }
    return found;
  }
}
