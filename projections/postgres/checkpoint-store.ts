/**
 * Projection checkpoints (`projection_checkpoints`, migration 003): per projector, topic and partition, the
 * offset of the next record to apply. Written in the same transaction as the projected rows, so the rows and
 * the checkpoint are either both there or both not; the log's own consumer offset only saves re-reading.
 */
import { DeltabrokerError, isDeltabrokerError } from '../../src/errors';
import { assertPositionHeld, type RecordBatch } from '../../src/log';
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
  return (await claimCheckpoints(tx, [ref]))[0] as bigint;
}

/**
 * claimCheckpoint for several partitions in one statement (a round of batches), in the order given. Rows are
 * locked in (projector, topic, partition) order, whatever the order given, so two transactions claiming
 * overlapping sets wait for each other instead of deadlocking.
 */
async function claimCheckpoints(tx: SqlExecutor, refs: readonly PartitionRef[]): Promise<bigint[]> {
  const result = await tx.query<{ topic: string; partition: number; next_offset: string | number | bigint }>(
    `insert into projection_checkpoints (projector, topic, partition, next_offset)
       select projector, topic, partition, 0 from unnest($1::text[], $2::text[], $3::int[]) as r(projector, topic, partition)
       order by projector, topic, partition
       on conflict (projector, topic, partition) do update set next_offset = projection_checkpoints.next_offset
     returning topic, partition, next_offset`,
    [refs.map((r) => r.projector), refs.map((r) => r.topic), refs.map((r) => r.partition)],
    PREPARED,
  );
  const claimed = new Map(result.rows.map((row) => [`${row.topic}\0${row.partition}`, BigInt(row.next_offset)]));
  return refs.map((r) => claimed.get(`${r.topic}\0${r.partition}`) ?? 0n);
}

export async function advanceCheckpoint(tx: SqlExecutor, ref: PartitionRef, nextOffset: bigint): Promise<void> {
  await advanceCheckpoints(tx, [{ ref, nextOffset }]);
}

/** advanceCheckpoint for several partitions in one statement. */
async function advanceCheckpoints(tx: SqlExecutor, advances: readonly { ref: PartitionRef; nextOffset: bigint }[]): Promise<void> {
  if (advances.length === 0) return;
  await tx.query(
    `update projection_checkpoints c set next_offset = r.next_offset, updated_at = now()
       from unnest($1::text[], $2::text[], $3::int[], $4::bigint[]) as r(projector, topic, partition, next_offset)
      where c.projector = r.projector and c.topic = r.topic and c.partition = r.partition`,
    [
      advances.map((a) => a.ref.projector),
      advances.map((a) => a.ref.topic),
      advances.map((a) => a.ref.partition),
      advances.map((a) => a.nextOffset.toString()),
    ],
    PREPARED,
  );
}

/**
 * A projector's round of batches (at most one per partition) written under their checkpoints, inside the
 * caller's transaction: the checkpoints are claimed first, `write` gets each batch's checkpoint before the round
 * (records below it were applied already), and each checkpoint then moves past its batch's last record, never
 * back. Throws DB_TOPIC_RECREATED (`assertPositionHeld`) when a checkpoint lies beyond its batch's partition, and
 * DB_CHECKPOINT_BEHIND, writing nothing, when one lies below where the projector knew it (`knowns`, per batch):
 * the database lost the rounds between, and the records after the checkpoint must be read again, not passed over.
 * Answers what `write` answered and each partition's checkpoint after the round.
 */
export async function underCheckpoints<R>(
  tx: SqlExecutor,
  projector: string,
  batches: readonly RecordBatch[],
  write: (befores: readonly bigint[]) => Promise<R>,
  knowns: readonly (bigint | undefined)[] = [],
): Promise<{ written: R; afters: bigint[] }> {
  const refs = batches.map((b): PartitionRef => ({ projector, topic: b.topic, partition: b.partition }));
  const befores = await claimCheckpoints(tx, refs);
  batches.forEach((batch, i) => assertPositionHeld(projector, batch, befores[i] as bigint));
  const behind = batches.flatMap((batch, i): CheckpointBehind[] => {
    const [before, known] = [befores[i] as bigint, knowns[i]];
    return known !== undefined && before < known
      ? [{ topic: batch.topic, partition: batch.partition, checkpoint: before.toString(), known: known.toString() }]
      : [];
  });
  if (behind.length > 0) throw checkpointsBehind(projector, behind);
  const written = await write(befores);
  const afters = checkpointsAfter(batches, befores);
  await advanceCheckpoints(
    tx,
    afters.flatMap((nextOffset, i) => (nextOffset > (befores[i] as bigint) ? [{ ref: refs[i] as PartitionRef, nextOffset }] : [])),
  );
  return { written, afters };
}

/** A partition whose stored checkpoint lies below the one its projector knew. */
export interface CheckpointBehind {
  readonly topic: string;
  readonly partition: number;
  readonly checkpoint: string;
  readonly known: string;
}

function checkpointsBehind(projector: string, behind: readonly CheckpointBehind[]): DeltabrokerError {
  const where = behind.map((b) => `${b.topic}/${b.partition} at ${b.checkpoint}, not ${b.known}`).join('; ');
  return new DeltabrokerError(
    'DB_CHECKPOINT_BEHIND',
    `${projector}: stored checkpoints lie behind what it applied (${where}); the database lost committed transactions, and the projector reads those partitions again from their checkpoints`,
    { stage: 'project', consumer: projector, partitions: behind },
  );
}

/** The partitions a DB_CHECKPOINT_BEHIND error names, or undefined for any other error. */
export function checkpointsBehindOf(e: unknown): readonly CheckpointBehind[] | undefined {
  return isDeltabrokerError(e) && e.code === 'DB_CHECKPOINT_BEHIND' ? (e.details.partitions as CheckpointBehind[]) : undefined;
}

/** Each batch's checkpoint after it: past its last record, never back from its checkpoint before (`befores`). */
export function checkpointsAfter(batches: readonly RecordBatch[], befores: readonly bigint[]): bigint[] {
  return batches.map((batch, i) => {
    const before = befores[i] as bigint;
    const last = batch.records[batch.records.length - 1];
    const end = last === undefined ? before : BigInt(last.offset) + 1n;
    return end > before ? end : before;
  });
}

/** The records at or above `from`, in offset order; found without converting each offset when the first is (the usual case). */
export function recordsFrom<R extends { readonly offset: string }>(records: readonly R[], from: bigint): readonly R[] {
  const first = records[0];
  return first === undefined || BigInt(first.offset) >= from ? records : records.filter((r) => BigInt(r.offset) >= from);
}

/** Every projector batch runs these: parsed and planned once per connection. */
const PREPARED = { prepare: true } as const;

/** The stored next offset of a partition, or undefined when this projector never applied it. */
export async function readCheckpoint(sql: SqlExecutor, ref: PartitionRef): Promise<bigint | undefined> {
  const result = await sql.query<{ next_offset: string | number | bigint }>(
    'select next_offset from projection_checkpoints where projector = $1 and topic = $2 and partition = $3',
    [ref.projector, ref.topic, ref.partition],
  );
  const row = result.rows[0];
  return row === undefined ? undefined : BigInt(row.next_offset);
}
