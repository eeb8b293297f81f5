/**
 * How long a transactional publisher's transaction may stay open before the coordinator aborts it (the producer's
 * `transaction.timeout.ms`). Kafka Streams' exactly-once default: an instance killed mid-transaction that does not
 * come back holds read_committed readers of its partitions back this long at most.
 */
export const TRANSACTION_TIMEOUT_MS = 10_000;
