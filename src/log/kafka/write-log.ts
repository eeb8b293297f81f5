/**
 * The write log on Kafka (or any Kafka-protocol broker, such as the embedded one) through kafkajs, with
 * values in the Confluent wire format against a Confluent-compatible schema registry. The only module,
 * with its siblings, that imports kafkajs and @kafkajs/confluent-schema-registry.
 */
import { logLevel, Partitioners, type Kafka, type Producer } from 'kafkajs';
import { kafkaClient } from './kafka-client';
import { silentLogger, type Logger } from '../../logger';
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
import { DEFAULT_REJECTIONS_TOPIC, rejectionRecords, topicNameStrategy, ValueCodec, type SubjectStrategy, type WriteLogOptions } from '../codec';
import { REPLAY_GROUP_PREFIX } from '../topology';
import { kafkajsLogCreator } from './kafkajs-logger';
import { Publisher } from './publisher';
import { KafkaTransactionalPublisher } from './transactional-publisher';
import { replay } from './replay';
import { subscribe } from './subscriber';
import { RenewableAdmin } from './renewable-admin';
import { createTopics } from './topics';
import { validateOutOfRangeWithLeader } from './out-of-range-recovery';
import { DEFAULT_END_SETTLE_MS } from '../lost-position';
import { type KafkaSasl, saslConfig } from './client-security';

export interface KafkaWriteLogOptions extends WriteLogOptions {
  readonly brokers: readonly string[];
  /** SASL identity on the brokers; anonymous without it. */
  readonly sasl?: KafkaSasl;
  /** Idempotent producer (needs InitProducerId on the broker); default false. */
  readonly idempotent?: boolean;
  /** kafkajs connection timeout in ms (default 3000). */
  readonly connectionTimeout?: number;
  /**
   * Longest time the broker may hold a consumer's fetch while no data is there (Kafka's `fetch.max.wait.ms`,
   * default 500). It also bounds how long stopping a consumer waits for the fetch in flight.
   */
  readonly fetchMaxWaitMs?: number;
  /** Consumer groups' `session.timeout.ms` (kafkajs's default 30 s when absent); heartbeats at a third, at most 3 s. */
  readonly sessionTimeoutMs?: number;
  /**
   * Replays read through temporary consumer groups named `<prefix>-<topic>-<uuid>` (default `deltabroker-replay`,
   * in the service's reserved group namespace): a client that is not the service names its own.
   */
  readonly replayGroupPrefix?: string;
  /** WriteLog.endSettleMs: how long a position beyond a partition's end must stay so to count as lost (default 10 s). */
  readonly endSettleMs?: number;
}

export class KafkaWriteLog implements WriteLog {
  private readonly subscriptions = new OpenSubscriptions();
  private readonly transactional = new Set<KafkaTransactionalPublisher>();
  private closed: Promise<void> | undefined;
  readonly publishesAcknowledgedTogether = false;

  private constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly admin: RenewableAdmin,
    private readonly codec: ValueCodec,
    private readonly publisher: Publisher,
    private readonly logger: Logger,
    private readonly rejectionsTopic: string,
    private readonly fetchMaxWaitMs: number,
    private readonly sessionTimeoutMs: number | undefined,
    private readonly replayGroupPrefix: string,
    private readonly subjectFor: SubjectStrategy,
    readonly endSettleMs: number,
  ) {}

  /** Connects a producer and an admin client; consumers connect per subscription. */
  static async open(o: KafkaWriteLogOptions): Promise<KafkaWriteLog> {
    validateOutOfRangeWithLeader();
    const logger = (o.logger ?? silentLogger()).child({ component: 'write-log' });
    const kafka = kafkaClient({
      clientId: o.clientId ?? 'deltabroker',
      brokers: [...o.brokers],
      connectionTimeout: o.connectionTimeout ?? 3000,
      ...saslConfig(o.sasl),
      logLevel: logLevel.INFO,
      logCreator: kafkajsLogCreator(logger),
    });
    const producer = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
      idempotent: o.idempotent ?? false,
      ...(o.idempotent ? { maxInFlightRequests: 1 } : {}),
    });
    await producer.connect();
    let admin: RenewableAdmin;
    try {
      admin = await RenewableAdmin.connect(kafka);
    } catch (e) {
      await producer.disconnect().catch(() => undefined);
      throw e;
    }
    const codec = new ValueCodec({
      registryUrl: o.registryUrl,
      ...(o.registryAuth && { auth: o.registryAuth }),
      ...(o.compatibility ? { compatibility: o.compatibility } : {}),
    });
    const subjectFor = o.subjectFor ?? topicNameStrategy;
    const publisher = new Publisher(producer, admin, codec, subjectFor);
    return new KafkaWriteLog(
      kafka,
      producer,
      admin,
      codec,
      publisher,
      logger,
      o.rejectionsTopic ?? DEFAULT_REJECTIONS_TOPIC,
      o.fetchMaxWaitMs ?? 500,
      o.sessionTimeoutMs,
      o.replayGroupPrefix ?? REPLAY_GROUP_PREFIX,
      subjectFor,
      o.endSettleMs ?? DEFAULT_END_SETTLE_MS,
    );
  }

  publish(records: readonly OutgoingRecord[]): Promise<LogPosition[]> {
    return this.publisher.publish(records);
  }

  async subscribe<T = unknown>(options: SubscribeOptions<T>): Promise<Subscription> {
    const sub = await subscribe(
      {
        kafka: this.kafka,
        codec: this.codec,
        logger: this.logger,
        reject: (r) => this.reject(r),
        ends: this,
        fetchMaxWaitMs: this.fetchMaxWaitMs,
        ...(this.sessionTimeoutMs !== undefined && { sessionTimeoutMs: this.sessionTimeoutMs }),
      },
      options,
    );
    return this.subscriptions.track(sub);
  }

  replay<T = unknown>(options: ReplayOptions<T>): Promise<ReplayResult> {
    return replay(
      {
        kafka: this.kafka,
        admin: this.admin,
        codec: this.codec,
        logger: this.logger,
        fetchMaxWaitMs: this.fetchMaxWaitMs,
        groupPrefix: this.replayGroupPrefix,
      },
      options,
    );
  }

  registerValueSchema(topic: string, schema: RecordSchema): Promise<number> {
    return this.codec.schemaId(this.subjectFor(topic), schema);
  }

  createTopics(topics: readonly TopicSpec[]): Promise<string[]> {
    return this.admin.use((admin) => createTopics(admin, topics));
  }

  async topicOffsets(topic: string): Promise<TopicOffsets[]> {
    const offsets = await this.admin.topicOffsets(topic);
    return offsets.map((p) => ({ partition: p.partition, low: p.low, high: p.high })).sort((a, b) => a.partition - b.partition);
  }

  async openTransactionalPublisher(transactionalId: string): Promise<TransactionalPublisher> {
    const publisher = new KafkaTransactionalPublisher(this.kafka, this.publisher, transactionalId);
    await publisher.init();
    this.transactional.add(publisher);
    return oneTransactionAtATime({
      publishAndCommit: (records, consumed) => publisher.publishAndCommit(records, consumed),
      close: async () => {
        this.transactional.delete(publisher);
        await publisher.close();
      },
    });
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      await this.subscriptions.stopAll();
      await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect(), ...[...this.transactional].map((p) => p.close())]);
    })();
    return this.closed;
  }

  private async reject(rejections: readonly Rejection[]): Promise<void> {
    await this.publish(rejectionRecords(this.rejectionsTopic, rejections));
  }
}

/** Opens the Kafka write log (see KafkaWriteLogOptions). */
export const openKafkaWriteLog = (o: KafkaWriteLogOptions): Promise<KafkaWriteLog> => KafkaWriteLog.open(o);
