/**
 * A consumer-group subscription with at-least-once delivery: per partition, batches are handed over in
 * offset order; an offset is committed only after the handler resolved for its batch. Undecodable records
 * are published to the rejections topic first (so no refusal is lost), then skipped.
 */
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from '../../logger';
import type { RecordBatch, SubscribeOptions, Subscription } from '../port';
import type { Rejection } from '../schema-types';
import { decodeRawRecords, type ValueCodec } from '../codec';
import { toRawRecords } from './raw-records';

export interface SubscriberDeps {
  readonly kafka: Kafka;
  readonly codec: ValueCodec;
  readonly logger: Logger;
  readonly reject: (rejections: readonly Rejection[]) => Promise<void>;
  /** Longest time the broker may hold a fetch that has no data (also bounds how long stop() waits). */
  readonly fetchMaxWaitMs: number;
}

export async function subscribe<T>(deps: SubscriberDeps, o: SubscribeOptions<T>): Promise<Subscription & { consumer: Consumer }> {
  const consumer = deps.kafka.consumer({ groupId: o.groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: deps.fetchMaxWaitMs });
  let markJoined: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => (markJoined = resolve));
  const removeJoinListener = consumer.on(consumer.events.GROUP_JOIN, () => markJoined());
  const log = deps.logger.child({ groupId: o.groupId });
  // A handler that keeps failing makes kafkajs retry, then restart the consumer from the last committed
  // offset: the partition waits, nothing is skipped. Say so loudly; a crash without restart stops the group.
  const removeCrashListener = consumer.on(consumer.events.CRASH, ({ payload }) => {
    log.error({ err: payload.error, restart: payload.restart }, payload.restart ? 'consumer failed; restarting from the committed offsets' : 'consumer stopped after a failure');
  });

  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [...o.topics], fromBeginning: (o.start ?? 'earliest') === 'earliest' });
    await consumer.run({
      autoCommit: true,
      autoCommitThreshold: 1,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: o.partitionsConsumedConcurrently ?? 1,
      eachBatch: (payload) => handleBatch(deps, o, payload, log),
    });
  } catch (e) {
    await consumer.disconnect().catch(() => undefined);
    throw e;
  }

  let stopped: Promise<void> | undefined;
  return {
    groupId: o.groupId,
    joined,
    consumer,
    stop: () => {
      stopped ??= (async () => {
        removeJoinListener();
        removeCrashListener();
        await consumer.disconnect();
      })();
      return stopped;
    },
  };
}

async function handleBatch<T>(deps: SubscriberDeps, o: SubscribeOptions<T>, payload: EachBatchPayload, log: Logger): Promise<void> {
  const { batch, resolveOffset, commitOffsetsIfNecessary, heartbeat, isRunning, isStale } = payload;
  if (batch.messages.length === 0 || !isRunning() || isStale()) return;
  const { records, rejections } = await decodeRawRecords(deps.codec, batch.topic, batch.partition, toRawRecords(batch.messages), o.readerSchema);
  if (rejections.length > 0) {
    await deps.reject(rejections);
    log.warn(
      { topic: batch.topic, partition: batch.partition, offsets: rejections.map((r) => r.source?.offset), reasons: rejections.map((r) => r.reason) },
      'undecodable records sent to the rejections topic',
    );
  }
  const handed: RecordBatch<T> = {
    topic: batch.topic,
    partition: batch.partition,
    records,
    rejected: rejections.length,
    highWatermark: batch.highWatermark,
  };
  if (records.length > 0) await o.handleBatch(handed);
  resolveOffset(batch.lastOffset());
  await commitOffsetsIfNecessary();
  await heartbeat();
}
