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
import { isTopicRecreated, type LostPosition } from '../lost-position';

export interface SubscriberDeps {
  readonly kafka: Kafka;
  readonly codec: ValueCodec;
  readonly logger: Logger;
  readonly reject: (rejections: readonly Rejection[]) => Promise<void>;
  /** Longest time the broker may hold a fetch that has no data (also bounds how long stop() waits). */
  readonly fetchMaxWaitMs: number;
}

export async function subscribe<T>(deps: SubscriberDeps, o: SubscribeOptions<T>): Promise<Subscription & { consumer: Consumer }> {
  const consumer = deps.kafka.consumer({
    groupId: o.groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: deps.fetchMaxWaitMs,
    ...(o.maxBytesPerPartition !== undefined && { maxBytesPerPartition: o.maxBytesPerPartition }),
  });
  let markJoined: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => (markJoined = resolve));
  const latest = o.start === 'latest';
  const removeJoinListener = consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    if (o.onLostPosition) holdUntilPositionsChecked(deps.kafka, consumer, o.groupId, payload.memberAssignment, o.onLostPosition, log);
    if (!latest) return markJoined();
    // kafkajs resolves `latest` only at the partition's first fetch, so a record published between the join and
    // that fetch would be skipped: pin the partitions without a committed offset to their end now, then resolve.
    pinToEnd(deps.kafka, consumer, o.groupId, payload.memberAssignment).then(markJoined, (err: unknown) => {
      log.warn({ err }, 'could not pin new partitions to their end offsets; the first fetch resolves them');
      markJoined();
    });
  });
  const log = deps.logger.child({ groupId: o.groupId });
  // A handler that keeps failing makes kafkajs retry, then restart the consumer from the last committed
  // offset: the partition waits, nothing is skipped. Say so loudly; a crash without restart stops the group.
  const removeCrashListener = consumer.on(consumer.events.CRASH, ({ payload }) => {
    log.error(
      { err: payload.error, restart: payload.restart },
      payload.restart ? 'consumer failed; restarting from the committed offsets' : 'consumer stopped after a failure',
    );
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

/** Seeks each assigned partition that has no committed offset to its current end offset. */
async function pinToEnd(kafka: Kafka, consumer: Consumer, groupId: string, assignment: Record<string, number[]>): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const [topic, partitions] of Object.entries(assignment)) {
      const [committed, ends] = await Promise.all([admin.fetchOffsets({ groupId, topics: [topic] }), admin.fetchTopicOffsets(topic)]);
      const uncommitted = new Set((committed[0]?.partitions ?? []).filter((p) => p.offset === '-1').map((p) => p.partition));
      for (const end of ends) {
        if (partitions.includes(end.partition) && uncommitted.has(end.partition)) consumer.seek({ topic, partition: end.partition, offset: end.high });
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/**
 * Called as the group is joined, before kafkajs's first fetch: pauses every assigned partition, and resumes those
 * whose committed offset their log still holds; the others stay paused and are reported.
 */
function holdUntilPositionsChecked(
  kafka: Kafka,
  consumer: Consumer,
  groupId: string,
  assignment: Record<string, number[]>,
  onLost: (lost: LostPosition) => void,
  log: Logger,
): void {
  const held = Object.entries(assignment).map(([topic, partitions]) => ({ topic, partitions }));
  consumer.pause(held);
  const report = (lost: LostPosition): void => {
    log.error({ ...lost }, 'the partition no longer holds this consumer position; the partition is stopped');
    onLost(lost);
  };
  void haltLostPositions(kafka, groupId, assignment, report)
    .catch((err: unknown) => {
      log.warn({ err }, 'could not compare committed offsets with the partitions; kafkajs resets any out of range');
      return [];
    })
    .then((lost) => {
      const isLost = (topic: string, partition: number): boolean => lost.some((l) => l.topic === topic && l.partition === partition);
      consumer.resume(held.map(({ topic, partitions }) => ({ topic, partitions: partitions.filter((p) => !isLost(topic, p)) })));
    });
}

/**
 * Finds the assigned partitions whose committed offset lies outside their log (auto.offset.reset=none: kafkajs
 * would reset such a fetch to `start` on its own), reports them and answers them; they stay paused.
 */
async function haltLostPositions(
  kafka: Kafka,
  groupId: string,
  assignment: Record<string, number[]>,
  onLost: (lost: LostPosition) => void,
): Promise<LostPosition[]> {
  const found: LostPosition[] = [];
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const [topic, partitions] of Object.entries(assignment)) {
      const [committed, offsets] = await Promise.all([admin.fetchOffsets({ groupId, topics: [topic] }), admin.fetchTopicOffsets(topic)]);
      for (const c of committed[0]?.partitions ?? []) {
        const log = offsets.find((o) => o.partition === c.partition);
        if (!partitions.includes(c.partition) || c.offset === '-1' || !log) continue;
        const position = BigInt(c.offset);
        if (position >= BigInt(log.low) && position <= BigInt(log.high)) continue;
        const lost = { topic, partition: c.partition, position: c.offset, logStart: log.low, highWatermark: log.high };
        found.push(lost);
        onLost(lost);
      }
    }
  } finally {
    await admin.disconnect();
  }
  return found;
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
  if (records.length > 0) {
    try {
      // kafkajs resolves offsets in its own loop: here the batch's settled work is awaited before the next batch.
      await (
        await o.handleBatch(handed)
      )?.settled;
    } catch (e) {
      if (!isTopicRecreated(e)) throw e;
      payload.pause(); // nothing resolved or committed: the partition waits for the next subscribe
      log.error(
        { err: e, topic: batch.topic, partition: batch.partition },
        'the handler stopped this partition; it is not consumed until the service restarts',
      );
      return;
    }
  }
  resolveOffset(batch.lastOffset());
  await commitOffsetsIfNecessary();
  await heartbeat();
}
