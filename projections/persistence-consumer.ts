import type { EntityEvent, LogPosition, RecordBatch, RecordSchemas, Subscription, WriteLog } from '../src/log';
import type { SqlClient } from '../src/store/sql-client';
import { persistenceTopicSpec } from '../src/log/topology';
import { AppliedPositions } from './postgres/applied-positions';
import { readCheckpoint } from './postgres/checkpoint-store';

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
  /** Applies one batch and answers the partition's next offset once it is stored. */
  apply(batch: RecordBatch<EntityEvent>): Promise<bigint>;
}

/**
 * What every projector shares: one consumer group over the persistence topics, a batch handed to `apply` per
 * partition in order, and the applied positions readers may wait on. Resolves once the group is joined.
 */
export async function consumePersistenceTopics(o: PersistenceConsumerOptions): Promise<PersistenceConsumer> {
  const positions = new AppliedPositions((topic, partition) => readCheckpoint(o.sql, { projector: o.projector, topic, partition }));
  let subscription: Subscription | undefined;
  if (o.topics.length > 0) {
    await o.log.createTopics(o.topics.map(persistenceTopicSpec));
    subscription = await o.log.subscribe<EntityEvent>({
      groupId: o.projector,
      topics: o.topics,
      readerSchema: o.schemas.EntityEvent,
      partitionsConsumedConcurrently: o.concurrency,
      handleBatch: async (batch) => positions.advance(batch.topic, batch.partition, await o.apply(batch)),
    });
    await subscription.joined;
  }
  let stopped: Promise<void> | undefined;
  return {
    waitFor: (position, timeoutMs) => positions.waitFor(position, timeoutMs),
    stop: () => {
      stopped ??= (async () => {
        positions.close();
        await subscription?.stop();
      })();
      return stopped;
    },
  };
}
