/**
 * The write log on the embedded broker of this very process, without a Kafka client: appends to and reads
 * from the broker's partition logs, groups through its GroupCoordinator and OffsetStore. What it writes is
 * what a Kafka producer would have written (record batches v2, Confluent-framed Avro values, murmur2
 * partitions), so kcat, kafkajs and librdkafka read it, and its consumer groups are the ones Kafka tools see.
 * External clients keep the Kafka protocol; the kafkajs adapter stays the one for a Kafka cluster.
 */
import type { EmbeddedKafkaParts } from '../../embedded/kafka';
import { silentLogger, type Logger } from '../../logger';
import { DEFAULT_REJECTIONS_TOPIC, rejectionRecords, topicNameStrategy, ValueCodec, type SubjectStrategy, type WriteLogOptions } from '../codec';
import type {
  OutgoingRecord,
  LogPosition,
  ReplayOptions,
  ReplayResult,
  SubscribeOptions,
  Subscription,
  TopicOffsets,
  TopicSpec,
  TransactionalPublisher,
  WriteLog,
} from '../port';
import { OpenSubscriptions } from '../open-subscriptions';
import { oneTransactionAtATime } from '../one-transaction-at-a-time';
import type { Rejection } from '../schema-types';
import type { RecordSchema } from '../schemas';
import { DecodedBatches } from './decoded-batches';
import { logClosed } from './log-errors';
import { Publisher } from './publisher';
import { replay } from './replay';
import { subscribe } from './subscription';
import { createTopics, topicOffsets } from './topics';
import { InProcessTransactionalPublisher } from './transactional-publisher';

export interface InProcessWriteLogOptions extends WriteLogOptions {
  /** The embedded broker's parts (`startEmbeddedKafka(…).parts`). */
  readonly broker: EmbeddedKafkaParts;
  /** How often group members heartbeat and notice a rebalance (default 1000 ms). */
  readonly heartbeatIntervalMs?: number;
}

export class InProcessWriteLog implements WriteLog {
  private readonly subscriptions = new OpenSubscriptions();
  private readonly codec: ValueCodec;
  private readonly decoded = new DecodedBatches();
  private readonly publisher: Publisher;
  private readonly logger: Logger;
  private readonly subjectFor: SubjectStrategy;
  private readonly rejectionsTopic: string;
  private closed: Promise<void> | undefined;
  /** Set once close() has stopped the subscriptions (whose last batches may still publish rejections). */
  private isClosed = false;
  readonly publishesAcknowledgedTogether = true;
  /** One broker in this process: a partition's end never trails what was read. */
  readonly endSettleMs = 0;

  constructor(private readonly o: InProcessWriteLogOptions) {
    this.logger = (o.logger ?? silentLogger()).child({ component: 'write-log' });
    this.codec = new ValueCodec({
      registryUrl: o.registryUrl,
      ...(o.registryAuth && { auth: o.registryAuth }),
      ...(o.compatibility ? { compatibility: o.compatibility } : {}),
    });
    this.subjectFor = o.subjectFor ?? topicNameStrategy;
    this.rejectionsTopic = o.rejectionsTopic ?? DEFAULT_REJECTIONS_TOPIC;
    this.publisher = new Publisher(o.broker, this.codec, this.subjectFor);
  }

  publish(records: readonly OutgoingRecord[]): Promise<LogPosition[]> {
    if (this.isClosed) return Promise.reject(logClosed());
    return this.publisher.publish(records);
  }

  async subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription> {
    if (this.closed) throw logClosed();
    const sub = subscribe(
      {
        broker: this.o.broker,
        codec: this.codec,
        decoded: this.decoded,
        logger: this.logger,
        reject: (r) => this.reject(r),
        clientId: this.o.clientId ?? 'deltabroker',
        ...(this.o.heartbeatIntervalMs !== undefined && { heartbeatIntervalMs: this.o.heartbeatIntervalMs }),
      },
      options,
    );
    return this.subscriptions.track(sub);
  }

  replay<T = unknown>(options: ReplayOptions<T>): Promise<ReplayResult> {
    return replay(this.o.broker.logs, this.codec, options);
  }

  registerValueSchema(topic: string, schema: RecordSchema): Promise<number> {
    return this.codec.schemaId(this.subjectFor(topic), schema);
  }

  async createTopics(topics: readonly TopicSpec[]): Promise<string[]> {
    return createTopics(this.o.broker.logs, topics);
  }

  async topicOffsets(topic: string): Promise<TopicOffsets[]> {
    return topicOffsets(this.o.broker.logs, topic);
  }

  async openTransactionalPublisher(transactionalId: string): Promise<TransactionalPublisher> {
    if (this.isClosed) throw logClosed();
    const publisher = new InProcessTransactionalPublisher(this.o.broker, this.publisher, transactionalId);
    await publisher.init();
    return oneTransactionAtATime(publisher);
  }

  /** Stops every subscription (each leaves its group); the broker itself belongs to whoever started it. */
  close(): Promise<void> {
    this.closed ??= this.subscriptions.stopAll().then(() => {
      this.isClosed = true;
    });
    return this.closed;
  }

  private async reject(rejections: readonly Rejection[]): Promise<void> {
    await this.publish(rejectionRecords(this.rejectionsTopic, rejections));
  }
}

/** Opens the in-process write log on an embedded broker of this process (see InProcessWriteLogOptions). */
export const openInProcessWriteLog = async (o: InProcessWriteLogOptions): Promise<InProcessWriteLog> => new InProcessWriteLog(o);
