/**
 * The write-log port: everything the service needs from its log (Kafka or the embedded broker), with no
 * engine type in sight. Two adapters implement it: `kafka/` (kafkajs, for any Kafka-protocol broker) and
 * `in-process/` (the embedded broker of this same process); a contract suite in the tests runs against both.
 *
 * Offsets are decimal strings (Kafka offsets are int64). Values are Avro records, typed by the schema the
 * publisher names; on the consuming side they arrive decoded, and records whose bytes cannot be decoded
 * never reach a handler: they become Rejection records (stage `decode`) and the offset moves on.
 */
import type { Rejection } from './schema-types';
import type { RecordSchema } from './schemas';
import type { LostPosition } from './lost-position';

export type Offset = string;
export type Headers = Readonly<Record<string, string>>;

export interface OutgoingRecord<T = unknown> {
  readonly topic: string;
  /** Message key; records with the same key land on the same partition, in order. */
  readonly key: string | null;
  readonly value: T;
  /** Writer schema of `value`; registered on first use under `subject`. */
  readonly schema: RecordSchema<T>;
  /** Registry subject; the adapter's subject strategy decides when absent (TopicNameStrategy: `<topic>-value`). */
  readonly subject?: string;
  readonly headers?: Headers;
  /** Explicit partition; by default the partition follows the key (murmur2, as Java clients do). */
  readonly partition?: number;
  /** Record timestamp in epoch milliseconds; the producer's clock by default. */
  readonly timestamp?: number;
}

/** Where a record is on the log: what a publish answers, and what a read may ask to have seen. */
export interface LogPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: Offset;
}

export interface LogRecord<T = unknown> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: Offset;
  readonly key: string | null;
  readonly value: T;
  readonly headers: Headers;
  /** Record timestamp in epoch milliseconds. */
  readonly timestamp: number;
  /** Registry id of the schema the value was written with. */
  readonly schemaId: number;
}

/** Consecutive records of one partition, in offset order. */
export interface RecordBatch<T = unknown> {
  readonly topic: string;
  readonly partition: number;
  /** Decoded records, never empty (a fetched batch whose records were all rejected is not handed over). */
  readonly records: readonly LogRecord<T>[];
  /** How many records of this batch were undecodable and went to the rejections topic instead. */
  readonly rejected: number;
  /** Offset after the last record currently in the partition when the batch was fetched. */
  readonly highWatermark: Offset;
}

export type BatchHandler<T> = (batch: RecordBatch<T>) => Promise<void>;

/**
 * What a subscription's handler answers: nothing (the batch is done), or `settled`, work the batch started and
 * that its offset waits for. The partition's next batch is handed over at once; offsets are committed in order,
 * each once its batch settled; if `settled` rejects, that batch and the ones after it are delivered again.
 * Or `seek`: the batch is not done, and the partition is read again from that offset, which becomes the group's
 * position (Kafka's seek from a handler: a projector whose own checkpoint lies behind the records it was handed).
 */
export type BatchHandled = void | { readonly settled: Promise<void> } | { readonly seek: Offset };

/** Where a partition is consumed from, instead of its group's committed offset. */
export interface StartPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: Offset;
}
export type SubscriptionBatchHandler<T> = (batch: RecordBatch<T>) => Promise<BatchHandled>;

export interface SubscribeOptions<T = unknown> {
  /** Consumer group: members of one group share the partitions; each group gets every record. */
  readonly groupId: string;
  readonly topics: readonly string[];
  /** Where a group with no committed offset starts: `earliest` (default) or `latest`. */
  readonly start?: 'earliest' | 'latest';
  /**
   * Called per batch, one batch of a partition at a time. Offsets are committed only after it resolved (and
   * after what it answered as `settled`); if it throws, the batch is delivered again (at-least-once). If it
   * throws DB_TOPIC_RECREATED (`topicRecreated`), the partition stops instead: nothing is committed or retried
   * until the next subscribe.
   */
  readonly handleBatch: SubscriptionBatchHandler<T>;
  /**
   * When given, a position the partition no longer holds (below its start or beyond its end, e.g. once its
   * topic was deleted and created again) stops that partition and is reported here, instead of resetting to `start` (Kafka's
   * auto.offset.reset=none). The in-process adapter checks before every read; the kafkajs adapter when its
   * partitions are assigned (kafkajs resets an out-of-range fetch on its own).
   */
  readonly onLostPosition?: (lost: LostPosition) => void;
  /**
   * Called each time this member is given partitions, before any of their records is handed over; they wait until
   * it resolves (a failure is logged and it is called again). Kafka Streams restores a task's state store here: the
   * member that had the partitions may have died after some of its effects reached the log. It may answer where
   * some of them start instead of the group's committed offset, which then moves there: a consumer that keeps its
   * positions with its effects (a Kafka Connect sink's offsets, a projector's checkpoints) starts from those, since
   * the group's position may lie beyond effects its database lost. A position outside the log is treated as a
   * committed one would be (`onLostPosition`).
   */
  readonly onAssigned?: (partitions: readonly { topic: string; partition: number }[]) => Promise<void | readonly StartPosition[]>;
  /**
   * Whether the group's position moves as batches are handled (default true). False for a reader that wants only
   * what arrives while it runs, in a group of its own (Kafka's enable.auto.commit=false without a commit of its
   * own): no offset is ever written, so the group leaves none behind, and each join starts at `start`.
   */
  readonly commitPositions?: boolean;
  /** Decode values into this reader schema (Avro schema resolution) instead of the writer's schema. */
  readonly readerSchema?: RecordSchema<T>;
  /** How many partitions are handled at the same time (default 1); order holds within each partition. */
  readonly partitionsConsumedConcurrently?: number;
  /**
   * Bytes read per partition at a time, at least one stored batch (default 1 MiB, Kafka's
   * max.partition.fetch.bytes). A handler that folds a batch into one write per record (a projector) gets more
   * records per batch while it is behind; a partition that is caught up hands over what is there, as before.
   */
  readonly maxBytesPerPartition?: number;
  /**
   * Hand over records once the group commit that makes them durable has started, before it ends and moves the
   * high watermark (the in-process adapter; a Kafka consumer, the kafkajs adapter included, sees only the high
   * watermark). Only for a consumer whose every effect reaches others through records it then appends to this
   * same broker, and only after those are durable (the pipeline: events, rejections, outcomes): group commits run
   * one after another, each over every partition dirty when it starts, so those records are durable no earlier
   * than what was read. A consumer that writes elsewhere first (a projector's table) must not: a crash could
   * leave the effect of a record the log lost. Reading at a commit's start rather than at each append keeps
   * everything one commit covers in one batch.
   */
  readonly readWhileCommitting?: boolean;
}

export interface Subscription {
  readonly groupId: string;
  /** Resolves once this member has joined its group and received its partitions. */
  readonly joined: Promise<void>;
  /** Stops fetching, lets the batch in hand finish, leaves the group. */
  stop(): Promise<void>;
  /**
   * Consumes again a partition this member holds and stopped (a lost position, or a handler's DB_TOPIC_RECREATED),
   * from `offset`, which it first commits as the group's position: a rebalance afterwards starts there too, not at
   * the lost position. Kafka's seek, for stopped partitions only: a partition this member consumes is left as it is
   * (its position is one the log holds), and DB_CONFLICT answers for a partition this member does not hold now.
   */
  resumeAt(topic: string, partition: number, offset: Offset): Promise<void>;
}

export interface PartitionOffset {
  readonly partition: number;
  readonly offset: Offset;
}

/** Where a replay starts reading. */
export type ReplayStart =
  | { readonly kind: 'earliest' }
  /** Per partition; partitions not listed start at their earliest offset. */
  | { readonly kind: 'offsets'; readonly offsets: readonly PartitionOffset[] }
  /** The first record whose timestamp is at or after `timestamp` (epoch ms), in each partition. */
  | { readonly kind: 'timestamp'; readonly timestamp: number };

export interface ReplayOptions<T = unknown> {
  readonly topic: string;
  /** Default: earliest. */
  readonly from?: ReplayStart;
  /** Batches in offset order per partition; nothing is committed anywhere. */
  readonly handleBatch: BatchHandler<T>;
  readonly readerSchema?: RecordSchema<T>;
  /** Told about each undecodable record; a replay skips it and does not publish it again as a rejection. */
  readonly onRejected?: (rejection: Rejection) => void | Promise<void>;
}

export interface ReplayResult {
  /** Records handed to the handler. */
  readonly records: number;
  /** Records skipped as undecodable. */
  readonly rejected: number;
  /** The end offsets the replay read up to (exclusive), taken when it started. */
  readonly endOffsets: readonly PartitionOffset[];
}

export interface TopicSpec {
  readonly topic: string;
  /** Default 1. */
  readonly partitions?: number;
  /** Default: the broker's default. */
  readonly replicationFactor?: number;
  /** Topic configuration entries, e.g. `{ 'retention.ms': '-1' }`. */
  readonly config?: Readonly<Record<string, string>>;
}

export interface TopicOffsets {
  readonly partition: number;
  /** Earliest offset still in the log. */
  readonly low: Offset;
  /** Offset the next record will get (end offset, high watermark). */
  readonly high: Offset;
}

/** Positions a consumer group has finished with: each the offset it reads next. */
export interface ConsumedPositions {
  readonly groupId: string;
  readonly positions: readonly LogPosition[];
}

/**
 * A transactional producer (KIP-98) for consume-transform-produce, as Kafka Streams' exactly-once: what it publishes
 * and the input positions it commits become visible together or not at all, so a `read_committed` reader sees each
 * record once even when the consumer is killed and its input delivered again. One transaction at a time; opening a
 * publisher with the same transactional id again (a restart) fences the older one and aborts its open transaction.
 */
export interface TransactionalPublisher {
  /**
   * Publishes `records` and commits `consumed` in one transaction; resolves once it is committed. On failure the
   * transaction is aborted (nothing of it becomes visible to `read_committed` readers, the positions stay) and the
   * error is thrown; a fenced publisher fails every later call.
   */
  publishAndCommit(records: readonly OutgoingRecord[], consumed: ConsumedPositions): Promise<void>;
  close(): Promise<void>;
}

export interface WriteLog {
  /**
   * Publishes records (to one or more topics) and answers where each landed, in input order. Resolves only
   * once the log acknowledged every record (all in-sync replicas).
   */
  publish(records: readonly OutgoingRecord[]): Promise<LogPosition[]>;
  /**
   * Whether publishes made while others are in flight are acknowledged together with them (the in-process
   * adapter appends at once, and one group commit covers every append before it), rather than one after another
   * (a Kafka producer's connection answers its requests in order, each after its own acknowledgement, so callers
   * gather records into one publish at a time).
   */
  readonly publishesAcknowledgedTogether: boolean;
  /**
   * How long a partition's end may trail what consumers have already read: after a broker fails, the new leader's
   * high watermark trails the old one's until its followers fetch again. A position beyond the end counts as lost
   * (settledBeyondEnd) only once it stayed beyond for this long; 0 where the end never trails (one node).
   */
  readonly endSettleMs: number;
  subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription>;
  /** Reads a topic from a start point up to its end offsets as they were when the replay began. */
  replay<T = unknown>(options: ReplayOptions<T>): Promise<ReplayResult>;
  /**
   * Registers `schema` as the value schema of `topic` (under the adapter's subject strategy) unless the subject
   * holds it already, and answers its registry id; producers that do not register (auto.register.schemas=false,
   * use.latest.version=true) then find it.
   */
  registerValueSchema(topic: string, schema: RecordSchema): Promise<number>;
  /** Creates the topics that do not exist yet; answers the names it created. */
  createTopics(topics: readonly TopicSpec[]): Promise<string[]>;
  /** Low and high offsets of each partition of a topic. */
  topicOffsets(topic: string): Promise<TopicOffsets[]>;
  /** A transactional producer under `transactionalId`, which must be stable across restarts to fence a zombie. */
  openTransactionalPublisher(transactionalId: string): Promise<TransactionalPublisher>;
  /** Stops every subscription and closes connections. */
  close(): Promise<void>;
}
