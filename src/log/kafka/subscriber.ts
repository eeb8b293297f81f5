/**
 * A consumer-group subscription with at-least-once delivery: per partition, batches are handed over in
 * offset order; an offset is committed only after the handler resolved for its batch. Undecodable records
 * are published to the rejections topic first (so no refusal is lost), then skipped.
 */
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { Logger } from '../../logger';
import { DeltabrokerError } from '../../errors';
import type { Offset, RecordBatch, StartPosition, SubscribeOptions, Subscription, WriteLog } from '../port';
import type { Rejection } from '../schema-types';
import { decodeRawRecords, type ValueCodec } from '../codec';
import { toRawRecords } from './raw-records';
import { isLeaderMove, withAdmin } from './renewable-admin';
import { isTopicRecreated, settledBeyondEnd, type LostPosition } from '../lost-position';

export interface SubscriberDeps {
  readonly kafka: Kafka;
  readonly codec: ValueCodec;
  readonly logger: Logger;
  readonly reject: (rejections: readonly Rejection[]) => Promise<void>;
  /** Where a committed offset beyond a partition's end is checked again until the end settled. */
  readonly ends: Pick<WriteLog, 'topicOffsets' | 'endSettleMs'>;
  /** Longest time the broker may hold a fetch that has no data (also bounds how long stop() waits). */
  readonly fetchMaxWaitMs: number;
  /** `session.timeout.ms` of the group; kafkajs's default when absent. */
  readonly sessionTimeoutMs?: number;
}

export async function subscribe<T>(deps: SubscriberDeps, o: SubscribeOptions<T>): Promise<Subscription & { consumer: Consumer }> {
  const consumer = deps.kafka.consumer({
    groupId: o.groupId,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: deps.fetchMaxWaitMs,
    ...(deps.sessionTimeoutMs !== undefined && {
      sessionTimeout: deps.sessionTimeoutMs,
      heartbeatInterval: Math.min(3000, Math.floor(deps.sessionTimeoutMs / 3)),
    }),
    ...(o.maxBytesPerPartition !== undefined && { maxBytesPerPartition: o.maxBytesPerPartition }),
  });
  let markJoined: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => (markJoined = resolve));
  const latest = o.start === 'latest';
  // What this member holds, and which of it it stopped (kept paused): what `resumeAt` may consume again.
  let assignment: Record<string, number[]> = {};
  const halted = new HaltedPartitions();
  const removeJoinListener = consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    assignment = payload.memberAssignment;
    halted.retain(assignment); // kafkajs keeps a partition paused while this member keeps it
    if (o.onLostPosition || o.onAssigned) holdUntilPrepared(deps.kafka, deps.ends, consumer, o, payload.memberAssignment, log, halted);
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
    await subscribeWhenKnown(consumer, o.topics, (o.start ?? 'earliest') === 'earliest');
    await consumer.run({
      autoCommit: o.commitPositions !== false,
      autoCommitThreshold: 1,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: o.partitionsConsumedConcurrently ?? 1,
      eachBatch: (payload) =>
        handleBatch(deps, o, payload, log, halted, (offset) => consumer.seek({ topic: payload.batch.topic, partition: payload.batch.partition, offset })),
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
    resumeAt: async (topic: string, partition: number, offset: Offset) => {
      const refuse = (why: string): never => {
        throw new DeltabrokerError('DB_CONFLICT', `${o.groupId} cannot resume ${topic}/${partition}: ${why}`, {
          field: 'partition',
          rule: 'stopped-here',
          stage: 'consume',
        });
      };
      if (!assignment[topic]?.includes(partition)) refuse('this member does not hold it now');
      if (!halted.has(topic, partition)) return; // consumed now, from a position the log holds
      // The committed offset first: a rebalance from here on starts the partition there, not at the lost position.
      if (o.commitPositions !== false) await consumer.commitOffsets([{ topic, partition, offset }]);
      halted.release(topic, partition);
      consumer.seek({ topic, partition, offset });
      consumer.resume([{ topic, partitions: [partition] }]);
    },
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

/**
 * A broker's metadata trails the controller's for a moment after a topic is created (sooner still after one of the
 * same name was deleted), and kafkajs's subscribe fails on the UNKNOWN_TOPIC_OR_PARTITION it then answers: try again
 * for a bounded time.
 */
async function subscribeWhenKnown(consumer: Consumer, topics: readonly string[], fromBeginning: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await consumer.subscribe({ topics: [...topics], fromBeginning });
    } catch (error) {
      const unknown = (error as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION' || isLeaderMove(error);
      if (!unknown || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Seeks each assigned partition that has no committed offset to its current end offset. */
async function pinToEnd(kafka: Kafka, consumer: Consumer, groupId: string, assignment: Record<string, number[]>): Promise<void> {
  for (const [topic, partitions] of Object.entries(assignment)) {
    const [committed, ends] = await withAdmin(kafka, (admin) =>
      Promise.all([admin.fetchOffsets({ groupId, topics: [topic] }), admin.fetchTopicOffsets(topic)]),
    );
    const uncommitted = new Set((committed[0]?.partitions ?? []).filter((p) => p.offset === '-1').map((p) => p.partition));
    for (const end of ends) {
      if (partitions.includes(end.partition) && uncommitted.has(end.partition)) consumer.seek({ topic, partition: end.partition, offset: end.high });
    }
  }
}

/**
 * Called as the group is joined, before kafkajs's first fetch: pauses every assigned partition until `onAssigned`
 * resolved (run again after a failure) and their committed offsets were compared with their logs; then seeks those
 * `onAssigned` answered a start for (kafkajs commits a seek before its fetch) and resumes them, except those whose
 * position their log no longer holds, which stay paused and are reported.
 */
function holdUntilPrepared<T>(
  kafka: Kafka,
  ends: SubscriberDeps['ends'],
  consumer: Consumer,
  o: SubscribeOptions<T>,
  assignment: Record<string, number[]>,
  log: Logger,
  halted: HaltedPartitions,
): void {
  const held = Object.entries(assignment).map(([topic, partitions]) => ({ topic, partitions }));
  consumer.pause(held);
  const report = (lost: LostPosition): void => {
    halted.add(lost.topic, lost.partition);
    log.error({ ...lost }, 'the partition no longer holds this consumer position; the partition is stopped');
    o.onLostPosition?.(lost);
  };
  const lostPositions = o.onLostPosition
    ? haltLostPositions(kafka, ends, o.groupId, assignment, report).catch((err: unknown) => {
        log.warn({ err }, 'could not compare committed offsets with the partitions; kafkajs resets any out of range');
        return [];
      })
    : Promise.resolve([]);
  const prepared = o.onAssigned ? prepareAssigned(o.onAssigned, held, log) : Promise.resolve([]);
  void Promise.all([lostPositions, prepared]).then(([lost, starts]) => {
    const isLost = (topic: string, partition: number): boolean => lost.some((l) => l.topic === topic && l.partition === partition);
    try {
      for (const { topic, partition, offset } of starts) {
        if (assignment[topic]?.includes(partition) && !isLost(topic, partition)) consumer.seek({ topic, partition, offset });
      }
      consumer.resume(held.map(({ topic, partitions }) => ({ topic, partitions: partitions.filter((p) => !isLost(topic, p)) })));
    } catch (err) {
      // The consumer left its group meanwhile (stopped, or restarting after a crash): nothing of this assignment is
      // held any more, and a rejoin holds and prepares what it is given again.
      log.debug({ err }, 'assignment prepared after the consumer left its group; nothing to resume');
    }
  });
}

async function prepareAssigned(
  onAssigned: NonNullable<SubscribeOptions['onAssigned']>,
  held: { topic: string; partitions: number[] }[],
  log: Logger,
): Promise<readonly StartPosition[]> {
  const partitions = held.flatMap(({ topic, partitions: list }) => list.map((partition) => ({ topic, partition })));
  for (let failures = 1; ; failures++) {
    try {
      return (await onAssigned(partitions)) ?? [];
    } catch (err) {
      log.error({ err, attempt: failures }, 'preparing the assigned partitions failed; they wait, and it runs again');
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 300 * 2 ** (failures - 1))));
    }
  }
}

/**
 * Finds the assigned partitions whose committed offset lies outside their log (auto.offset.reset=none: kafkajs
 * would reset such a fetch to `start` on its own), reports them and answers them; they stay paused.
 */
async function haltLostPositions(
  kafka: Kafka,
  ends: SubscriberDeps['ends'],
  groupId: string,
  assignment: Record<string, number[]>,
  onLost: (lost: LostPosition) => void,
): Promise<LostPosition[]> {
  const found: LostPosition[] = [];
  for (const [topic, partitions] of Object.entries(assignment)) {
    const [committed, offsets] = await withAdmin(kafka, (admin) =>
      Promise.all([admin.fetchOffsets({ groupId, topics: [topic] }), admin.fetchTopicOffsets(topic)]),
    );
    for (const c of committed[0]?.partitions ?? []) {
      let log: { low: string; high: string } | undefined = offsets.find((o) => o.partition === c.partition);
      if (!partitions.includes(c.partition) || c.offset === '-1' || !log) continue;
      const position = BigInt(c.offset);
      if (position >= BigInt(log.low) && position <= BigInt(log.high)) continue;
      if (position > BigInt(log.high)) {
        // Beyond the end may be a new leader's high watermark that has not caught up yet.
        log = await settledBeyondEnd(ends, topic, c.partition, position);
        if (log === undefined) continue;
      }
      const lost = { topic, partition: c.partition, position: c.offset, logStart: log.low, highWatermark: log.high };
      found.push(lost);
      onLost(lost);
    }
  }
  return found;
}

/** How long a batch may stay in the handler before every further minute of it is logged as an error. */
const OVERDUE_BATCH_MS = 60_000;

async function handleBatch<T>(
  deps: SubscriberDeps,
  o: SubscribeOptions<T>,
  payload: EachBatchPayload,
  log: Logger,
  halted: HaltedPartitions,
  seek: (offset: Offset) => void,
): Promise<void> {
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
    // kafkajs has no max.poll.interval: a handler that never settles holds its partition in a live member for ever,
    // so a batch in hand for long is an error an operator sees, repeated until it settles.
    const started = Date.now();
    const overdue = setInterval(
      () =>
        log.error(
          { topic: batch.topic, partition: batch.partition, firstOffset: batch.firstOffset(), records: records.length, inHandMs: Date.now() - started },
          'a batch is still in the handler; its partition waits',
        ),
      OVERDUE_BATCH_MS,
    );
    try {
      const handled = await o.handleBatch(handed);
      if (handled && 'seek' in handled) {
        // Nothing of the batch is resolved; kafkajs commits the seek and fetches from there (this batch goes stale).
        seek(handled.seek);
        return;
      }
      // kafkajs resolves offsets in its own loop: here the batch's settled work is awaited before the next batch.
      await handled?.settled;
    } catch (e) {
      if (!isTopicRecreated(e)) throw e;
      payload.pause(); // nothing resolved or committed: the partition waits for resumeAt or the next subscribe
      halted.add(batch.topic, batch.partition);
      log.error({ err: e, topic: batch.topic, partition: batch.partition }, 'the handler stopped this partition; it is not consumed until it is resumed');
      return;
    } finally {
      clearInterval(overdue);
    }
  }
  resolveOffset(batch.lastOffset());
  // kafkajs's commitOffsetsIfNecessary commits at the threshold whether or not autoCommit is on.
  if (o.commitPositions !== false) await commitOffsetsIfNecessary();
  await heartbeat();
}

/** The partitions of the current assignment this member stopped and keeps paused. */
class HaltedPartitions {
  private readonly ids = new Set<string>();

  add(topic: string, partition: number): void {
    this.ids.add(`${topic}\u0000${partition}`);
  }

  has(topic: string, partition: number): boolean {
    return this.ids.has(`${topic}\u0000${partition}`);
  }

  release(topic: string, partition: number): void {
    this.ids.delete(`${topic}\u0000${partition}`);
  }

  /** Forgets the partitions this member no longer holds. */
  retain(assignment: Record<string, number[]>): void {
    for (const id of this.ids) {
      const [topic = '', partition] = id.split('\u0000');
      if (!assignment[topic]?.includes(Number(partition))) this.ids.delete(id);
    }
  }
}
