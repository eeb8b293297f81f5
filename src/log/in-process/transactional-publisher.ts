/**
 * A transactional producer on the embedded broker of this process: the broker's own transaction coordinator ends
 * its transactions, as it ends a Kafka client's. Records are appended as transactional batches of the producer's id
 * and epoch, the consumed positions go in as the transaction's offsets, and EndTxn writes the commit markers and
 * commits the offsets to the group together. A crash before EndTxn leaves the transaction open; the broker's next
 * start aborts it, and a read_committed reader never sees its records.
 */
import type { EmbeddedKafkaParts } from '../../embedded/kafka';
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import { partitionKey } from '../../embedded/kafka/txn/transaction-state';
import type { ConsumedPositions, OutgoingRecord, TransactionalPublisher } from '../port';
import { TRANSACTION_TIMEOUT_MS } from '../transaction-timeout';
import { brokerRefused, brokerStopped } from './log-errors';
import type { Publisher, TransactionalStamp } from './publisher';

export class InProcessTransactionalPublisher implements TransactionalPublisher {
  private producer: TransactionalStamp | undefined;
  private closed = false;

  constructor(
    private readonly broker: EmbeddedKafkaParts,
    private readonly publisher: Publisher,
    private readonly transactionalId: string,
  ) {}

  /** Takes the transactional id (InitProducerId): a publisher that held it before is fenced, its open transaction aborted. */
  async init(): Promise<void> {
    const answer = await this.broker.transactions.initProducerId(this.transactionalId, TRANSACTION_TIMEOUT_MS);
    if (answer.errorCode !== ErrorCode.NONE) throw brokerRefused(`InitProducerId for ${this.transactionalId}`, answer.errorCode);
    const sequences = new Map<PartitionLog, number>();
    this.producer = {
      producerId: answer.producerId,
      producerEpoch: answer.producerEpoch,
      takeSequences: (log, count) => {
        const first = sequences.get(log) ?? 0;
        sequences.set(log, (first + count) % 2 ** 31);
        return first;
      },
    };
  }

  async publishAndCommit(records: readonly OutgoingRecord[], consumed: ConsumedPositions): Promise<void> {
    if (this.closed || this.broker.stopping.aborted) throw brokerStopped();
    if (records.length === 0 && consumed.positions.length === 0) return;
    if (!this.producer) await this.init();
    const p = this.producer as TransactionalStamp;
    const coordinator = this.broker.transactions;
    const id = this.transactionalId;
    const refused = (what: string, errorCode: number): never => {
      throw brokerRefused(`${what} of transaction ${id}`, errorCode);
    };
    try {
      const partitions = this.publisher.partitionsOf(records);
      const added = [...new Map(records.map((r, i) => [partitionKey(r.topic, partitions[i]!), { topic: r.topic, partition: partitions[i]! }])).values()];
      if (added.length > 0) {
        const errors = await coordinator.addPartitions(id, p.producerId, p.producerEpoch, added);
        const failed = errors.find((e) => e !== ErrorCode.NONE);
        if (failed !== undefined) refused('AddPartitionsToTxn', failed);
        await this.publisher.publish(records, p, partitions);
      }
      if (consumed.positions.length > 0) {
        const addedOffsets = await coordinator.addOffsets(id, p.producerId, p.producerEpoch, consumed.groupId);
        if (addedOffsets !== ErrorCode.NONE) refused('AddOffsetsToTxn', addedOffsets);
        const offsets = consumed.positions.map((q): [string, number, number, number, null] => [q.topic, q.partition, Number(q.offset), -1, null]);
        const committed = await coordinator.commitOffsets(id, p.producerId, p.producerEpoch, consumed.groupId, offsets);
        if (committed !== ErrorCode.NONE) refused('TxnOffsetCommit', committed);
      }
      const ended = await coordinator.endTxn(id, p.producerId, p.producerEpoch, true);
      if (ended !== ErrorCode.NONE) refused('EndTxn', ended);
    } catch (e) {
      // Abort what is open; the next call takes the id again (a new epoch, its sequences from 0), as a Kafka client
      // does after a fatal error, so one failure does not wedge the publisher.
      this.producer = undefined;
      await coordinator.endTxn(id, p.producerId, p.producerEpoch, false).catch(() => undefined);
      throw e;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
