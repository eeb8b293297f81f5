/**
 * kafkajs's admin client keeps the cluster's metadata for five minutes and refreshes it early only for a topic it
 * does not know: when a partition's leader moves (a broker stopped, a new topic whose leader has not loaded it
 * yet), every offsets call fails with NOT_LEADER_OR_FOLLOWER until that cache expires, and its own retrier gives
 * up at once. Met on Kafka 4 (never on the single-node embedded broker, where the leader never moves). A fresh
 * admin client reads fresh metadata, so these helpers replace the client and try again for a bounded time.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Admin, Kafka } from 'kafkajs';

/** Errors that mean "ask the cluster again where the partition lives". */
const LEADER_MOVED = new Set(['NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER', 'LEADER_NOT_AVAILABLE', 'REPLICA_NOT_AVAILABLE', 'BROKER_NOT_AVAILABLE']);
const GONE_BROKER = new Set([
  'PartitionsNotReady',
  'KafkaJSConnectionError',
  'KafkaJSBrokerNotFound',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
]);
const RETRY_FOR_MS = 30_000;
/**
 * How long an unknown topic is asked about again: a broker whose metadata trails the controller's does not know a
 * topic created a moment ago (Kafka counts UNKNOWN_TOPIC_OR_PARTITION retriable); a topic that does not exist fails
 * after this.
 */
const UNKNOWN_TOPIC_GRACE_MS = 3_000;

/**
 * A topic whose metadata lists no partitions yet, or one without a leader: a moment after its creation, and sooner
 * after a deletion of the same name. kafkajs's fetchTopicOffsets then fails with a TypeError of its own, even when
 * the metadata it was just given looked whole (its brokers answered for none of the partitions it asked about).
 */
class PartitionsNotReady extends Error {
  override readonly name = 'PartitionsNotReady';
}

type KafkajsError = { type?: string; name?: string; originalError?: unknown; cause?: unknown } | undefined;

/** Whether the error, or one a kafkajs retrier wrapped, passes `test`. */
function anyInChain(error: unknown, test: (e: NonNullable<KafkajsError>) => boolean): boolean {
  for (let e = error as KafkajsError; e; e = (e.originalError ?? e.cause) as KafkajsError) if (test(e)) return true;
  return false;
}

/** Whether the error, or the error a kafkajs retrier wrapped, says the partition's leader moved or its broker went. */
export function isLeaderMove(error: unknown): boolean {
  return anyInChain(error, (e) => (e.type !== undefined && LEADER_MOVED.has(e.type)) || (e.name !== undefined && GONE_BROKER.has(e.name)));
}

async function retryOnLeaderMove<T>(attempt: () => Promise<T>, renew: () => Promise<void>): Promise<T> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await attempt();
    } catch (error) {
      if (!isLeaderMove(error) || Date.now() + wait > deadline) throw error;
      await sleep(wait);
      await renew();
    }
  }
}

async function connected(kafka: Kafka): Promise<Admin> {
  const admin = kafka.admin();
  await admin.connect();
  return admin;
}

/** One admin client for the life of the write log, replaced by a fresh one when a call meets a moved leader. */
export class RenewableAdmin {
  private constructor(
    private readonly kafka: Kafka,
    private current: Admin,
  ) {}

  static async connect(kafka: Kafka): Promise<RenewableAdmin> {
    return new RenewableAdmin(kafka, await connected(kafka));
  }

  use<T>(call: (admin: Admin) => Promise<T>): Promise<T> {
    return retryOnLeaderMove(
      () => call(this.current),
      async () => {
        const stale = this.current;
        this.current = await connected(this.kafka);
        await stale.disconnect().catch(() => undefined);
      },
    );
  }

  /** Low and high offsets of every partition, once the metadata shows each with a leader. */
  topicOffsets(topic: string): Promise<{ partition: number; low: string; high: string }[]> {
    const unknownUntil = Date.now() + UNKNOWN_TOPIC_GRACE_MS;
    return this.use(async (admin) => {
      const [metadata] = (
        await admin.fetchTopicMetadata({ topics: [topic] }).catch((error: unknown) => {
          if (anyInChain(error, (e) => e.type === 'UNKNOWN_TOPIC_OR_PARTITION') && Date.now() < unknownUntil) {
            throw new PartitionsNotReady(`topic ${topic} is not known to the broker asked yet`);
          }
          throw error;
        })
      ).topics;
      if (!metadata || metadata.partitions.length === 0 || metadata.partitions.some((p) => p.leader < 0)) {
        throw new PartitionsNotReady(`topic ${topic} has no partitions with leaders yet`);
      }
      try {
        return await admin.fetchTopicOffsets(topic);
      } catch (error) {
        if (error instanceof TypeError) throw new PartitionsNotReady(`topic ${topic}: no broker answered for its partitions yet`);
        throw error;
      }
    });
  }

  disconnect(): Promise<void> {
    return this.current.disconnect();
  }
}

/** An admin client for one task (connected, used, disconnected), with the same renewal on a moved leader. */
export async function withAdmin<T>(kafka: Kafka, task: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = await RenewableAdmin.connect(kafka);
  try {
    return await admin.use(task);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
