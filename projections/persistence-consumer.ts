import { DeltabrokerError } from '../src/errors';
import {
  BatchRounds,
  LINGER_BELOW_EVENTS,
  isTopicRecreated,
  lostPositionOf,
  settledBeyondEnd,
  type EntityEvent,
  type LogPosition,
  type RecordBatch,
  type RecordSchemas,
  type StartPosition,
  type Subscription,
  type WriteLog,
} from '../src/log';
import type { Logger } from '../src/logger';
import type { SqlClient } from '../src/store/sql-client';
import { persistenceTopicSpec } from '../src/log/topology';
import { AppliedPositions } from './postgres/applied-positions';
import { checkpointsBehindOf, readCheckpoint } from './postgres/checkpoint-store';
import { checkpointsOf } from './replay/checkpoints';
import { StoppedTopics } from './stopped-topics';

export interface PersistenceConsumer {
  /** True once the projector has applied `position`, false on timeout or stop (read-your-writes). */
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

export interface PersistenceConsumerOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  /** Where the projector's checkpoints are (`projection_checkpoints`): where its partitions start, what waiters on other instances read. */
  sql: SqlClient;
  logger: Logger;
  /** Consumer group, and the name of the projector's checkpoints. */
  projector: string;
  topics: readonly string[];
  concurrency: number;
  /** Bytes read per partition at a time (the log's default when absent): more records to fold while behind. */
  maxBytesPerPartition?: number;
  /**
   * Applies the batches of a round, at most one per partition, and answers each partition's next offset once
   * they are stored. Throws DB_TOPIC_RECREATED (`assertPositionHeld`) when a checkpoint lies beyond its batch's
   * partition, and DB_CHECKPOINT_BEHIND (`underCheckpoints`) when one lies below `knowns`, per batch the
   * checkpoint this consumer last knew its partition at.
   */
  applyRound(batches: readonly RecordBatch<EntityEvent>[], knowns: readonly (bigint | undefined)[]): Promise<bigint[]>;
  /** Where partitions whose position the log lost are reported (default: kept to this consumer). */
  stopped?: StoppedTopics;
  /**
   * How long a round of fewer than LINGER_BELOW_EVENTS.projectors waits for more records after a round as small (BatchRounds' linger;
   * the service passes `projections.lingerMs`). Absent or 0: it starts at once.
   */
  lingerMs?: number;
}

/**
 * What every projector shares: one consumer group over the persistence topics, the batches of each partition
 * in order, handed to `applyRound` together with other partitions' batches that became readable at the same
 * time, and the applied positions readers may wait on. Resolves once the group is joined.
 *
 * The projector's checkpoints, not its group's offsets, say where it is (a Kafka Connect sink's pattern): they
 * commit with its rows, the group's offsets only after, in the broker. Each partition it is given starts at its
 * checkpoint (at the log's start when it has none), and a round that finds a checkpoint behind where this consumer
 * knew it (DB_CHECKPOINT_BEHIND) reads that partition again from there. So when PostgreSQL loses committed
 * transactions (restored to an earlier point, failed over to a replica that trailed), the projections catch up
 * from the log instead of passing over what the database lost.
 *
 * Topic identity: a persistence topic deleted and created again starts at offset 0 under a checkpoint that
 * counted the old topic's records, so its new records would pass for records applied before. A partition whose
 * checkpoint lies beyond its end (found at start, or by `applyRound` on a batch), or whose group offset the log lost,
 * is stopped with DB_TOPIC_RECREATED; the projector's other partitions go on. Once a recovery rebuilt the
 * projection from the new topic and moved the checkpoint, the partition is consumed again from the checkpoint
 * (StoppedTopics.resume).
 */
export async function consumePersistenceTopics(o: PersistenceConsumerOptions): Promise<PersistenceConsumer> {
  const checkpointOf = (topic: string, partition: number): Promise<bigint | undefined> => readCheckpoint(o.sql, { projector: o.projector, topic, partition });
  const positions = new AppliedPositions(checkpointOf);
  const stopped = o.stopped ?? new StoppedTopics();
  const knownsOf = (batches: readonly RecordBatch[]): (bigint | undefined)[] => batches.map((b) => positions.appliedTo(b.topic, b.partition));
  let subscription: Subscription | undefined;
  // The batches of partitions that become readable together are applied together (one transaction per round).
  const rounds = new BatchRounds<RecordBatch<EntityEvent>, { next: bigint } | { error: unknown }>(
    async (batches) => {
      try {
        return (await o.applyRound(batches, knownsOf(batches))).map((next) => ({ next }));
      } catch (e) {
        if (batches.length === 1 || !isTopicRecreated(e)) throw e;
        // A partition of the round lost its position (often a replay's handover that moved its checkpoint on): each
        // batch is applied on its own, so only that partition's batch answers with the error.
        return Promise.all(
          batches.map((b) =>
            o.applyRound([b], knownsOf([b])).then(
              ([next]) => ({ next: next as bigint }),
              (error: unknown) => ({ error }),
            ),
          ),
        );
      }
    },
    ROUND_RECORDS,
    (b) => b.records.length,
    { ms: o.lingerMs ?? 0, size: ROUND_RECORDS },
  );
  /**
   * Where a batch of a round that found checkpoints behind is read again: its partition's stored checkpoint, or,
   * for a partition of the round whose checkpoint was where expected, its own first record.
   */
  function seekBack(batch: RecordBatch<EntityEvent>, behind: NonNullable<ReturnType<typeof checkpointsBehindOf>>): bigint {
    const mine = behind.find((b) => b.topic === batch.topic && b.partition === batch.partition);
    if (!mine) return BigInt(batch.records[0]?.offset ?? 0);
    const checkpoint = BigInt(mine.checkpoint);
    positions.reset(batch.topic, batch.partition, checkpoint);
    o.logger.warn(
      { topic: batch.topic, partition: batch.partition, checkpoint: mine.checkpoint, applied: mine.known, code: 'DB_CHECKPOINT_BEHIND' },
      'the stored checkpoint is behind what this projector applied (the database lost committed transactions); reading the partition again from it',
    );
    return checkpoint;
  }
  if (o.topics.length > 0) {
    await o.log.createTopics(o.topics.map(persistenceTopicSpec));
    await findLostCheckpoints(o, checkpointOf, stopped);
    subscription = await o.log.subscribe<EntityEvent>({
      groupId: o.projector,
      topics: o.topics,
      readerSchema: o.schemas.EntityEvent,
      partitionsConsumedConcurrently: o.concurrency,
      ...(o.maxBytesPerPartition !== undefined && { maxBytesPerPartition: o.maxBytesPerPartition }),
      onLostPosition: (lost) => void stopped.stop(o.projector, lost),
      onAssigned: (partitions) => checkpointStarts(o, positions, partitions),
      handleBatch: async (batch) => {
        const known = stopped.errorOf(o.projector, batch.topic, batch.partition);
        if (known) throw known;
        try {
          const applied = await rounds.handle(batch);
          if ('error' in applied) throw applied.error;
          positions.advance(batch.topic, batch.partition, applied.next);
        } catch (e) {
          const behind = checkpointsBehindOf(e);
          if (behind) return { seek: seekBack(batch, behind).toString() };
          if (!isTopicRecreated(e)) throw e;
          const lost = lostPositionOf(e);
          // The batch's high watermark is as of its fetch: a replay's handover or another member may have moved
          // the checkpoint past it since, or a new leader's may trail. Only a checkpoint that stays beyond the
          // partition's end means a new topic.
          const end = await settledBeyondEnd(o.log, batch.topic, batch.partition, BigInt(lost.position));
          if (end === undefined) return; // every record of the batch is applied already
          throw stopped.stop(o.projector, { ...lost, logStart: end.low, highWatermark: end.high });
        }
      },
    });
    await subscription.joined;
    const resumable = subscription;
    stopped.onResume(o.projector, async (topic, partition) => {
      const offsets = (await o.log.topicOffsets(topic)).find((p) => p.partition === partition);
      const checkpoint = await checkpointOf(topic, partition);
      if (offsets && checkpoint !== undefined && checkpoint > BigInt(offsets.high)) {
        throw new DeltabrokerError(
          'DB_CONFLICT',
          `${o.projector} cannot resume ${topic}/${partition}: its checkpoint ${checkpoint} still lies beyond the partition's end ${offsets.high}; rebuild the projection from the new topic first`,
          { field: 'partition', rule: 'checkpoint-held', stage: 'recover' },
        );
      }
      const from = checkpoint ?? BigInt(offsets?.low ?? '0');
      positions.reset(topic, partition, from);
      await resumable.resumeAt(topic, partition, from.toString());
    });
  }
  let stopping: Promise<void> | undefined;
  return {
    waitFor: (position, timeoutMs) => positions.waitFor(position, timeoutMs),
    stop: () => {
      stopping ??= (async () => {
        positions.close();
        await subscription?.stop();
      })();
      return stopping;
    },
  };
}

/**
 * Records applied in one round at most. Rounds are for the small batches of a projector that keeps up (a few
 * dozen records each); a projector that is behind reads large batches, and those go in transactions of their
 * own, on their own connections, side by side. A round that size is also where lingering ends (BatchRounds).
 */
const ROUND_RECORDS = LINGER_BELOW_EVENTS.projectors;

/**
 * Where each assigned partition starts: its checkpoint, or the log's start when it has none (nothing of it was
 * applied). A checkpoint outside the log is left to the group's position: beyond the end is a recreated topic
 * (stopped by the first round's claim), below the start records the log no longer holds.
 */
async function checkpointStarts(
  o: PersistenceConsumerOptions,
  positions: AppliedPositions,
  partitions: readonly { topic: string; partition: number }[],
): Promise<StartPosition[]> {
  const starts: StartPosition[] = [];
  for (const topic of new Set(partitions.map((p) => p.topic))) {
    const [offsets, checkpoints] = await Promise.all([o.log.topicOffsets(topic), checkpointsOf(o.sql, o.projector, topic)]);
    for (const { partition } of partitions.filter((p) => p.topic === topic)) {
      const log = offsets.find((p) => p.partition === partition);
      if (!log) continue;
      const from = checkpoints.get(partition) ?? BigInt(log.low);
      if (from < BigInt(log.low) || from > BigInt(log.high)) continue;
      positions.reset(topic, partition, from);
      starts.push({ topic, partition, offset: from.toString() });
    }
  }
  return starts;
}

/** Stops, before consuming, the partitions whose stored checkpoint stays beyond their end (settledBeyondEnd). */
async function findLostCheckpoints(
  o: PersistenceConsumerOptions,
  checkpointOf: (topic: string, partition: number) => Promise<bigint | undefined>,
  stopped: StoppedTopics,
): Promise<void> {
  for (const topic of o.topics) {
    const suspects: { partition: number; checkpoint: bigint }[] = [];
    for (const { partition, high } of await o.log.topicOffsets(topic)) {
      const checkpoint = await checkpointOf(topic, partition);
      if (checkpoint !== undefined && checkpoint > BigInt(high)) suspects.push({ partition, checkpoint });
    }
    await Promise.all(
      suspects.map(async ({ partition, checkpoint }) => {
        const end = await settledBeyondEnd(o.log, topic, partition, checkpoint);
        if (end) stopped.stop(o.projector, { topic, partition, position: checkpoint.toString(), logStart: end.low, highWatermark: end.high });
      }),
    );
  }
}
