/**
 * A projector round in one statement, for a projector that keeps up. A round written the general way
 * (checkpoint-store.ts `underCheckpoints`) is five statements: BEGIN, claim the checkpoints, write, advance them,
 * COMMIT. A projector that applied a partition's last round knows the checkpoint it left there, so its next round
 * can lock the checkpoints it expects, move them and write its rows in one statement (one round trip, one
 * implicit transaction). When any checkpoint is not what it expected (another member or a replay's handover
 * moved it), the statement writes nothing, and the round is claimed the general way, which finds out why.
 *
 * The statement never waits for a checkpoint row: one locked by someone else counts as not where expected
 * (`skip locked`). It holds its tables' locks from its start, so waiting there would invert the order everyone else
 * takes them in: a replay's swap locks the live checkpoints, then renames the tables; a claimed round locks its
 * checkpoints before it touches a table. The writes wait for the checkpoint locks (each names `held` in its guard).
 */
import { checkpointsAfter } from './checkpoint-store';
import type { RecordBatch } from '../../src/log';
import type { GuardedWrite, SqlExecutor } from '../../src/store/sql-client';

/** Parameters of the checkpoint part, before the writes' own. */
const CHECKPOINT_PARAMETERS = 6;
/** The guard every write carries: true once every expected checkpoint row is locked. */
const GUARD = '(select ok from held)';

/** One projector's rounds in one statement, and where it left each partition's checkpoint. */
export class HeldRounds {
  private readonly leftAt = new Map<string, bigint>();

  constructor(
    private readonly sql: SqlExecutor,
    private readonly projector: string,
  ) {}

  /**
   * The checkpoints this projector left the round's partitions at, or undefined when the round is claimed instead:
   * a partition it has not applied since start (or since a failed round), or one whose checkpoint lies beyond its
   * batch's partition (a replay's handover may have moved the stored one back, else the claim throws
   * DB_TOPIC_RECREATED).
   */
  befores(batches: readonly RecordBatch[]): bigint[] | undefined {
    const befores: bigint[] = [];
    for (const batch of batches) {
      const before = this.leftAt.get(partitionIdOf(batch));
      if (before === undefined || before > BigInt(batch.highWatermark)) return undefined;
      befores.push(before);
    }
    return befores;
  }

  /**
   * Locks the round's checkpoints and, when each is at its `befores`, moves it past its batch and runs the writes,
   * in one statement. Answers each write's row count and each partition's checkpoint after the round, or undefined
   * (nothing written) when a checkpoint was not as expected.
   */
  async write(
    batches: readonly RecordBatch[],
    befores: readonly bigint[],
    writes: readonly GuardedWrite[],
  ): Promise<{ rowCounts: number[]; afters: bigint[] } | undefined> {
    const afters = checkpointsAfter(batches, befores);
    let first = CHECKPOINT_PARAMETERS + 1;
    const parts: string[] = [];
    const values: unknown[] = [
      batches.map((b) => b.topic),
      batches.map((b) => b.partition),
      befores.map(String),
      afters.map(String),
      this.projector,
      batches.length,
    ];
    writes.forEach((write, i) => {
      parts.push(`,\n    w${i} as (${write.text(first, GUARD)} returning 1)`);
      values.push(...write.values);
      first += write.values.length;
    });
    const text = `with expected as (
      select * from unnest($1::text[], $2::int[], $3::bigint[], $4::bigint[]) as e(topic, partition, next_offset, after)),
    locked as (
      select c.topic from projection_checkpoints c
        join expected e on c.projector = $5 and c.topic = e.topic and c.partition = e.partition and c.next_offset = e.next_offset
       order by c.topic, c.partition
       for update of c skip locked),
    held as (select count(*) = $6::int as ok from locked),
    moved as (
      update projection_checkpoints c set next_offset = e.after, updated_at = now()
        from expected e
       where ${GUARD} and c.projector = $5 and c.topic = e.topic and c.partition = e.partition and e.after > e.next_offset)${parts.join('')}
    select ${GUARD} as held${writes.map((_, i) => `, (select count(*) from w${i})::int as w${i}`).join('')}`;
    const row = (await this.sql.query<Record<string, boolean | number>>(text, values, { prepare: true })).rows[0];
    if (row?.held !== true) return undefined;
    return { rowCounts: writes.map((_, i) => Number(row[`w${i}`])), afters };
  }

  /** Where the round left its partitions' checkpoints, or undefined when it failed (the next round is claimed). */
  settled(batches: readonly RecordBatch[], afters: readonly bigint[] | undefined): void {
    batches.forEach((batch, i) => {
      const after = afters?.[i];
      if (after === undefined) this.leftAt.delete(partitionIdOf(batch));
      else this.leftAt.set(partitionIdOf(batch), after);
    });
  }
}

const partitionIdOf = (batch: RecordBatch): string => `${batch.topic}\0${batch.partition}`;
