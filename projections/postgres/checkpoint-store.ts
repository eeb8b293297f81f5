/**
 * Projection checkpoints (`projection_checkpoints`, migration 003): per projector, topic and partition, the
 * offset of the next record to apply. Written in the same transaction as the projected rows, so the rows and
 * the checkpoint are either both there or both not; the log's own consumer offset only saves re-reading.
 */
import type { SqlExecutor } from '../../src/store/sql-client';

export interface PartitionRef {
  readonly projector: string;
  readonly topic: string;
  readonly partition: number;
}

/**
 * Locks the partition's checkpoint row for this transaction (creating it at 0 when new) and answers its next
 * offset. The no-op update on conflict is what takes the row lock and returns the stored value in one round
 * trip, so two members briefly holding the same partition during a rebalance apply a batch one after the
 * other, and the second one sees the first one's checkpoint.
 */
export async function claimCheckpoint(tx: SqlExecutor, ref: PartitionRef): Promise<bigint> {
  const result = await tx.query<{ next_offset: string | number | bigint }>(
    `insert into projection_checkpoints (projector, topic, partition, next_offset) values ($1, $2, $3, 0)
       on conflict (projector, topic, partition) do update set next_offset = projection_checkpoints.next_offset
     returning next_offset`,
    [ref.projector, ref.topic, ref.partition],
  );
  return BigInt(result.rows[0]?.next_offset ?? 0);
}

export async function advanceCheckpoint(tx: SqlExecutor, ref: PartitionRef, nextOffset: bigint): Promise<void> {
  await tx.query('update projection_checkpoints set next_offset = $4, updated_at = now() where projector = $1 and topic = $2 and partition = $3', [
    ref.projector,
    ref.topic,
    ref.partition,
    nextOffset.toString(),
  ]);
}

/**
 * Moves the partition's checkpoint to `nextOffset` unless it is already there or beyond, in one statement:
 * for a projector whose writes are idempotent and made before, so it needs no row lock around them.
 */
export async function moveCheckpointForward(sql: SqlExecutor, ref: PartitionRef, nextOffset: bigint): Promise<void> {
  await sql.query(
    `insert into projection_checkpoints (projector, topic, partition, next_offset) values ($1, $2, $3, $4)
       on conflict (projector, topic, partition) do update
         set next_offset = excluded.next_offset, updated_at = now()
       where projection_checkpoints.next_offset < excluded.next_offset`,
    [ref.projector, ref.topic, ref.partition, nextOffset.toString()],
  );
}

/** The stored next offset of a partition, or undefined when this projector never applied it. */
export async function readCheckpoint(sql: SqlExecutor, ref: PartitionRef): Promise<bigint | undefined> {
  const result = await sql.query<{ next_offset: string | number | bigint }>(
    'select next_offset from projection_checkpoints where projector = $1 and topic = $2 and partition = $3',
    [ref.projector, ref.topic, ref.partition],
  );
  const row = result.rows[0];
  return row === undefined ? undefined : BigInt(row.next_offset);
}
