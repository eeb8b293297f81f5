/**
 * A kafkajs transactional producer (KIP-98): one transaction per publishAndCommit, holding the records and the
 * consumed positions (TxnOffsetCommit), committed together. Taking the transactional id (InitProducerId) fences
 * an older producer of the same id and aborts its open transaction.
 */
import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { ConsumedPositions, OutgoingRecord, TransactionalPublisher } from '../port';
import { TRANSACTION_TIMEOUT_MS } from '../transaction-timeout';
import type { Publisher } from './publisher';

export class KafkaTransactionalPublisher implements TransactionalPublisher {
  private producer: Promise<Producer> | undefined;
  private closed = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly publisher: Publisher,
    private readonly transactionalId: string,
  ) {}

  /**
   * Connects the producer and takes the transactional id now, not at the first transaction (kafkajs sends
   * InitProducerId when it begins one): an empty transaction, begun and aborted.
   */
  async init(): Promise<void> {
    const producer = await this.connected();
    await (await producer.transaction()).abort();
  }

  async publishAndCommit(records: readonly OutgoingRecord[], consumed: ConsumedPositions): Promise<void> {
    if (records.length === 0 && consumed.positions.length === 0) return;
    const producer = await this.connected();
    const transaction = await producer.transaction();
    try {
      await this.publisher.publish(records, transaction);
      if (consumed.positions.length > 0) {
        const topics = new Map<string, { partition: number; offset: string }[]>();
        for (const p of consumed.positions) topics.set(p.topic, [...(topics.get(p.topic) ?? []), { partition: p.partition, offset: p.offset }]);
        await transaction.sendOffsets({
          consumerGroupId: consumed.groupId,
          topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
        });
      }
      await transaction.commit();
    } catch (e) {
      // A producer that failed may be fenced or mid-request: drop it, and the next call connects a new one (a new
      // epoch, aborting whatever this one left open), as a Kafka Streams task does after a fatal producer error.
      this.producer = undefined;
      if (transaction.isActive()) await transaction.abort().catch(() => undefined);
      await producer.disconnect().catch(() => undefined);
      throw e;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const producer = this.producer;
    this.producer = undefined;
    await (await producer?.catch(() => undefined))?.disconnect();
  }

  private connected(): Promise<Producer> {
    if (this.closed) return Promise.reject(new Error(`transactional publisher ${this.transactionalId} is closed`));
    if (!this.producer) {
      const producer = this.kafka.producer({
        transactionalId: this.transactionalId,
        transactionTimeout: TRANSACTION_TIMEOUT_MS,
        idempotent: true,
        maxInFlightRequests: 1,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      const connecting = producer.connect().then(() => producer);
      this.producer = connecting;
      connecting.catch(() => {
        if (this.producer === connecting) this.producer = undefined;
      });
    }
    return this.producer;
  }
}
