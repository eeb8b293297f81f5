import { DeltabrokerError } from '../src/errors';
import {
  BatchRounds,
  isTopicRecreated,
  lostPositionOf,
  settledBeyondEnd,
  type EntityEvent,
  type LogPosition,
  type RecordBatch,
  type RecordSchemas,
  type Subscription,
  type WriteLog,
} from '../src/log';
import type { SqlClient } from '../src/store/sql-client';
import { persistenceTopicSpec } from '../src/log/topology';
import { AppliedPositions } from './postgres/applied-positions';
import { readCheckpoint } from './postgres/checkpoint-store';
import { StoppedTopics } from './stopped-topics';

export interface PersistenceConsumer {
  /** True once the projector has applied `position`, false on timeout or stop (read-your-writes). */
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean>;
  stop(): Promise<void>;
}

export interface PersistenceConsumerOptions {
  log: WriteLog;
  schemas: RecordSchemas;
  /** Where the projector's checkpoints are (`projection_checkpoints`), for waiters on other instances. */
  sql: SqlClient;
  /** Consumer group, and the name of the projector's checkpoints. */
  projector: string;
  topics: readonly string[];
  concurrency: number;
  /** Bytes read per partition at a time (the log's default when absent): more records to fold while behind. */
  maxBytesPerPartition?: number;
  /**
   * Applies the batches of a round, at most one per partition, and answers each partition's next offset once
   * they are stored. Throws DB_TOPIC_RECREATED (`assertPositionHeld`) when a checkpoint lies beyond its batch's
   * partition.
   */
  applyRound(batches: readonly RecordBatch<EntityEvent>[]): Promise<bigint[]>;
  /** Where partitions whose position the log lost are reported (default: kept to this consumer). */
  stopped?: StoppedTopics;
}

/**
 * What every projector shares: one consumer group over the persistence topics, the batches of each partition
 * in order, handed to `applyRound` together with other partitions' batches that became readable at the same
 * time, and the applied positions readers may wait on. Resolves once the group is joined.
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
  let subscription: Subscription | undefined;
  // The batches of partitions that become readable together are applied together (one transaction per round).
  const rounds = new BatchRounds<RecordBatch<EntityEvent>, { next: bigint } | { error: unknown }>(
    async (batches) => {
      try {
        return (await o.applyRound(batches)).map((next) => ({ next }));
      } catch (e) {
        if (batches.length === 1 || !isTopicRecreated(e)) throw e;
        // A partition of the round lost its position (often a replay's handover that moved its checkpoint on): each
        // batch is applied on its own, so only that partition's batch answers with the error.
        return Promise.all(
          batches.map((b) =>
            o.applyRound([b]).then(
              ([next]) => ({ next: next as bigint }),
              (error: unknown) => ({ error }),
            ),
          ),
        );
      }
    },
    ROUND_RECORDS,
    (b) => b.records.length,
  );
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
      handleBatch: async (batch) => {
        const known = stopped.errorOf(o.projector, batch.topic, batch.partition);
        if (known) throw known;
        try {
          const applied = await rounds.handle(batch);
          if ('error' in applied) throw applied.error;
          positions.advance(batch.topic, batch.partition, applied.next);
        } catch (e) {
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
 * own, on their own connections, side by side.
 */
const ROUND_RECORDS = 1000;

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
