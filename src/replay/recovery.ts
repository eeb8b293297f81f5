/**
 * Recovery of a recreated persistence topic: what it takes and answers. The projections implement it
 * (projections/recovery/topic-recovery.ts) inside the running service, the only process that holds the stopped
 * partitions; the HTTP route and the `deltabroker recover` command reach it there.
 */
import type { RebuildResult } from './reports';

export interface RecoverRequest {
  readonly tenant: string;
  readonly entity: string;
}

/** A partition a consumer had stopped with DB_TOPIC_RECREATED, as the recovery found it. */
export interface RecoveredPartition {
  /** The projector or action emitter (its consumer group). */
  readonly consumer: string;
  readonly partition: number;
  /** The lost position: the offset the consumer would have read next on the old topic. */
  readonly position: string;
  /** The partition's end when it was stopped. */
  readonly highWatermark: string;
}

export interface RecoveryReport {
  readonly tenant: string;
  readonly entity: string;
  readonly topic: string;
  /** The rebuild of the table and search index from what the new topic holds, with each checkpoint's handover. */
  readonly rebuild: RebuildResult;
  /**
   * The pipeline's state checkpoints that counted the old topic, moved back to the new topic's start: the next
   * start's catch-up reads the new topic's events into the record state again (idempotently).
   */
  readonly stateCheckpoints: readonly { readonly partition: number; readonly before: string; readonly after: string }[];
  /** Every stopped partition, each consumed again. */
  readonly resumed: readonly RecoveredPartition[];
  readonly durationMs: number;
}

export interface TopicRecovery {
  /**
   * Rebuilds the entity's projections from its recreated topic, moves their checkpoints to the new topic's
   * positions and consumes the stopped partitions again, while the service runs. Refuses (DB_NOT_FOUND,
   * DB_CONFLICT, naming the rule) an unknown entity, a topic nothing stopped, a topic shared with other entities,
   * and an entity whose replay shadow exists. The caller runs one replay or recovery of an entity at a time (the
   * HTTP route through the replay jobs).
   */
  recover(request: RecoverRequest): Promise<RecoveryReport>;
}
