/**
 * A transactional id's state as the coordinator keeps it (Kafka's TransactionMetadata, KIP-98). Ongoing: partitions
 * or offsets were added. Prepare*: EndTxn (or a timeout, or a fencing InitProducerId) decided, markers being
 * written; recovery finishes what it finds in these states. Complete*: markers written everywhere.
 */
export const TXN_STATUSES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort'] as const;
export type TxnStatus = (typeof TXN_STATUSES)[number];

/** Offsets a transaction commits for a consumer group: topic, partition, offset, leader epoch, metadata. */
export type PendingOffset = [topic: string, partition: number, offset: number, leaderEpoch: number, metadata: string | null];

export interface TxnState {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  status: TxnStatus;
  timeoutMs: number;
  /** When the transaction began (its first AddPartitions/AddOffsets), for the timeout; else when last changed. */
  sinceMs: number;
  /** Partitions in the transaction, as `topic\0partition`. */
  partitions: string[];
  /** Offsets per consumer group, visible to the group only once the transaction commits. */
  offsets: Record<string, PendingOffset[]>;
}

export const partitionKey = (topic: string, partition: number): string => `${topic}\0${partition}`;

export function splitPartitionKey(key: string): { topic: string; partition: number } {
  const sep = key.lastIndexOf('\0');
  return { topic: key.slice(0, sep), partition: Number(key.slice(sep + 1)) };
}

export const isPreparing = (s: TxnStatus): boolean => s === 'PrepareCommit' || s === 'PrepareAbort';
