/**
 * Per-partition checkpoints of a whole topic, for one projector name (live or shadow), on top of the
 * projection checkpoint store (`projection_checkpoints`).
 */
import { claimCheckpoint } from '../postgres/checkpoint-store';
import type { SqlExecutor } from '../../src/store/sql-client';

/** Partition → next offset to apply. */
export type Positions = Map<number, bigint>;

export async function checkpointsOf(sql: SqlExecutor, projector: string, topic: string): Promise<Positions> {
  const { rows } = await sql.query<{ partition: number; next_offset: string | number | bigint }>(
    'select partition, next_offset from projection_checkpoints where projector = $1 and topic = $2',
    [projector, topic],
  );
  return new Map(rows.map((r) => [Number(r.partition), BigInt(r.next_offset)]));
}

/**
 * Locks the projector's checkpoint row of every partition (creating missing ones at 0) until the transaction
 * ends, in partition order so two lockers never deadlock, and answers their values. A projector applying a
 * batch claims the same row first, so while these locks are held no batch of these partitions commits.
 */
export async function lockCheckpoints(tx: SqlExecutor, projector: string, topic: string, partitions: readonly number[]): Promise<Positions> {
  const locked: Positions = new Map();
  for (const partition of [...partitions].sort((a, b) => a - b)) locked.set(partition, await claimCheckpoint(tx, { projector, topic, partition }));
  return locked;
}

export async function writeCheckpoints(tx: SqlExecutor, projector: string, topic: string, positions: Positions): Promise<void> {
  for (const [partition, next] of positions) {
    await tx.query(
      `insert into projection_checkpoints (projector, topic, partition, next_offset) values ($1, $2, $3, $4)
         on conflict (projector, topic, partition) do update set next_offset = excluded.next_offset, updated_at = now()`,
      [projector, topic, partition, next.toString()],
    );
  }
}

export async function dropCheckpoints(sql: SqlExecutor, projector: string, topic: string): Promise<void> {
  await sql.query('delete from projection_checkpoints where projector = $1 and topic = $2', [projector, topic]);
}
