/**
 * The Postgres table projection without the log: applies one batch of a persistence topic partition to the
 * entity tables in one transaction, together with the partition's checkpoint. Records below the checkpoint
 * were applied before (the log redelivers after a crash between the database commit and the offset commit)
 * and are skipped, so every event takes effect exactly once. The projector (table-projector.ts) feeds it
 * from a consumer group; a rebuild could feed it from a replay.
 */
import { DeltabrokerError } from '../../src/errors';
import { assertPositionHeld, type ProjectedEvent, type LogRecord, type Offset, type RecordBatch } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import { personalFields, type EntityConfig, type EntityConfigSource } from '../../src/tenant';
import { advanceCheckpoint, claimCheckpoint, recordsFrom, underCheckpoints } from './checkpoint-store';
import { HeldRounds } from './held-round';
import { maskErasedPersonalFields } from '../erased-personal-fields';
import { foldRecordChanges, type RowChange } from './row-changes';
import { countWritten, rowStatements, writeRowChanges, type WriteCounts } from './row-writer';
import { migrateProjectionTable, projectionTableOf, type ProjectionTable } from './table-schema';

export interface TableProjectionOptions {
  readonly sql: SqlClient;
  readonly entities: EntityConfigSource;
  readonly logger: Logger;
  /** Name of the checkpoints this projection keeps (the consumer group's id, by default). */
  readonly projector: string;
}

/** What one batch did. Offsets are decimal strings. */
export interface BatchReport {
  readonly topic: string;
  readonly partition: number;
  /** The partition's checkpoint before the batch: records below it were already applied. */
  readonly checkpointBefore: string;
  /** The checkpoint after the batch: the offset after its last record. */
  readonly checkpointAfter: string;
  /** Offsets of the records applied by this batch's transaction. */
  readonly appliedOffsets: readonly string[];
  /** Records below the checkpoint: applied before (a redelivery), skipped now. */
  readonly alreadyApplied: number;
  /** Records at or above the checkpoint that could not be projected (no configuration, unusable key or payload). */
  readonly unprojectable: number;
  /** Rows inserted or updated, and rows deleted. */
  readonly upserted: number;
  readonly deleted: number;
  /** The unprojectable records that had a configuration (an unusable key or payload), and why. */
  readonly passedOver: readonly { readonly offset: string; readonly reason: string }[];
}

/**
 * A replay's run of one partition, folded as it was read (projections/replay/table-run-writer.ts): the row changes of
 * its records from `from` (the shadow's checkpoint when the run began) up to `end` (the offset after its last record).
 */
export interface FoldedRun {
  readonly topic: string;
  readonly partition: number;
  readonly highWatermark: Offset;
  readonly from: bigint;
  readonly end: bigint;
  readonly table: ProjectionTable;
  readonly changes: readonly RowChange[];
}

/** A batch's records of one entity, in offset order; `table` is undefined for an entity with no configuration. */
interface TableGroup {
  readonly table: ProjectionTable | undefined;
  readonly records: LogRecord<ProjectedEvent>[];
}

export class TableProjection {
  private readonly tables = new Map<string, { signature: string; ready: Promise<ProjectionTable> }>();

  /** The checkpoints' name. */
  readonly projector: string;
  private readonly held: HeldRounds;

  constructor(private readonly options: TableProjectionOptions) {
    this.projector = options.projector;
    this.held = new HeldRounds(options.sql, options.projector);
  }

  /**
   * The table of an entity, created or migrated when its configuration changed since last time. Throws
   * DB_CONFLICT when the change needs a rebuild (see table-schema.ts).
   */
  async tableFor(config: EntityConfig): Promise<ProjectionTable> {
    const wanted = projectionTableOf(config);
    const id = `${config.tenant}/${config.entity}`;
    const known = this.tables.get(id);
    if (known?.signature === wanted.signature) return known.ready;
    const ready = migrateProjectionTable(this.options.sql, wanted).then((migration) => {
      if (migration.created || migration.addedColumns.length > 0) {
        this.options.logger.info({ tenant: config.tenant, entity: config.entity, table: wanted.qualifiedName, ...migration }, 'projection table migrated');
      }
      return wanted;
    });
    this.tables.set(id, { signature: wanted.signature, ready });
    // A failed migration is tried again on the next batch (unless a newer configuration replaced it meanwhile).
    ready.catch(() => {
      if (this.tables.get(id)?.ready === ready) this.tables.delete(id);
    });
    return ready;
  }

  async apply(batch: RecordBatch<ProjectedEvent>): Promise<BatchReport> {
    return (await this.applyRound([batch]))[0] as BatchReport;
  }

  /**
   * Applies batches of several partitions (a round, see BatchRounds) in one transaction with their checkpoints:
   * in one statement when this projection left every one of them where the store still has it (held-round.ts),
   * else claimed in one statement, written as `apply` writes them and advanced in one.
   */
  async applyRound(batches: readonly RecordBatch<ProjectedEvent>[], knowns: readonly (bigint | undefined)[] = []): Promise<BatchReport[]> {
    const groups = await Promise.all(batches.map((b) => this.groupByTable(b.records)));
    let reports: BatchReport[];
    try {
      reports = (await this.applyHeld(batches, groups)) ?? (await this.applyClaimed(batches, groups, knowns));
    } catch (error) {
      this.held.settled(batches, undefined);
      throw error;
    }
    this.held.settled(
      batches,
      reports.map((report) => BigInt(report.checkpointAfter)),
    );
    for (const report of reports) this.logPassedOver(report);
    return reports;
  }

  /** The round in one statement, or undefined when it must be claimed (see held-round.ts). */
  private async applyHeld(batches: readonly RecordBatch<ProjectedEvent>[], groups: readonly TableGroup[][]): Promise<BatchReport[] | undefined> {
    // Erased subjects' values are masked after a read under a lock (erased-personal-fields.ts): not in one statement.
    if (groups.some((round) => round.some(({ table }) => table !== undefined && personalFields(table.config).length > 0))) return undefined;
    const befores = this.held.befores(batches);
    if (befores === undefined) return undefined;
    const plans = batches.map((batch, i) => planBatch(batch, groups[i] ?? [], befores[i] as bigint));
    const statements = plans.flatMap((plan, batch) => plan.writes.flatMap(({ table, changes }) => rowStatements(table, changes).map((s) => ({ batch, s }))));
    const written = await this.held.write(
      batches,
      befores,
      statements.map(({ s }) => s),
    );
    if (written === undefined) return undefined;
    const { rowCounts, afters } = written;
    const counts = plans.map((): WriteCounts => ({ upserted: 0, deleted: 0 }));
    statements.forEach(({ batch, s }, i) => countWritten(counts[batch] as WriteCounts, s.mode, rowCounts[i] as number));
    return plans.map((plan, i) => ({ ...plan.report, ...(counts[i] as WriteCounts), checkpointAfter: (afters[i] as bigint).toString() }));
  }

  /**
   * The round claimed, written and advanced in a transaction of its own (checkpoint-store.ts); `knowns` are where
   * the caller last knew each partition's checkpoint (DB_CHECKPOINT_BEHIND below them).
   */
  private applyClaimed(
    batches: readonly RecordBatch<ProjectedEvent>[],
    groups: readonly TableGroup[][],
    knowns: readonly (bigint | undefined)[],
  ): Promise<BatchReport[]> {
    return this.options.sql.transaction(async (tx) => {
      const { written, afters } = await underCheckpoints(
        tx,
        this.projector,
        batches,
        async (befores) => {
          const reports: Omit<BatchReport, 'checkpointAfter'>[] = [];
          for (const [i, batch] of batches.entries()) {
            const plan = planBatch(batch, groups[i] ?? [], befores[i] as bigint);
            const counts: WriteCounts = { upserted: 0, deleted: 0 };
            for (const { table, changes } of plan.writes) {
              const written = await writeRowChanges(tx, table, await maskErasedSubjects(tx, table, changes));
              counts.upserted += written.upserted;
              counts.deleted += written.deleted;
            }
            reports.push({ ...plan.report, ...counts });
          }
          return reports;
        },
        knowns,
      );
      return written.map((report, i) => ({ ...report, checkpointAfter: (afters[i] as bigint).toString() }));
    });
  }

  /**
   * Writes a folded run and moves the partition's checkpoint from `run.from` to `run.end`, in one transaction. The run
   * left out the records below `run.from`, so a checkpoint found anywhere else means another writer moved it meanwhile:
   * DB_CONFLICT, nothing written.
   */
  async applyFoldedRun(run: FoldedRun): Promise<void> {
    await this.options.sql.transaction(async (tx) => {
      const ref = { projector: this.projector, topic: run.topic, partition: run.partition };
      const before = await claimCheckpoint(tx, ref);
      assertPositionHeld(this.projector, run, before);
      if (before !== run.from)
        throw new DeltabrokerError(
          'DB_CONFLICT',
          `${this.projector}: the checkpoint of ${run.topic}/${run.partition} is at ${before}, not at ${run.from} where this run began; another writer moved it`,
          { stage: 'project', consumer: this.projector, topic: run.topic, partition: run.partition },
        );
      await writeRowChanges(tx, run.table, await maskErasedSubjects(tx, run.table, run.changes));
      if (run.end > before) await advanceCheckpoint(tx, ref, run.end);
    });
  }

  private logPassedOver(report: BatchReport): void {
    for (const s of report.passedOver)
      this.options.logger.warn({ topic: report.topic, partition: report.partition, offset: s.offset, reason: s.reason }, 'event not projectable; passed over');
  }

  /** The batch's records per entity, in offset order; `table` is undefined for an entity with no configuration. */
  private async groupByTable(records: readonly LogRecord<ProjectedEvent>[]): Promise<TableGroup[]> {
    const groups = new Map<string, LogRecord<ProjectedEvent>[]>();
    // A batch mostly holds one entity's events: the group of the record before is checked first, without making a
    // key for the map (a string per event, hashed, was a few per cent of a replay's thread).
    let last: { tenant: string; entity: string; group: LogRecord<ProjectedEvent>[] } | undefined;
    for (const record of records) {
      const { tenant, entity } = record.value;
      if (last?.tenant === tenant && last.entity === entity) {
        last.group.push(record);
        continue;
      }
      const id = `${tenant}/${entity}`;
      let group = groups.get(id);
      if (group) group.push(record);
      else groups.set(id, (group = [record]));
      last = { tenant, entity, group };
    }
    const out = [];
    for (const group of groups.values()) {
      const { tenant, entity } = (group[0] as LogRecord<ProjectedEvent>).value;
      const config = await this.options.entities.get(tenant, entity);
      if (config === undefined) this.options.logger.warn({ tenant, entity, events: group.length }, 'events of an entity with no configuration; passed over');
      out.push({ table: config === undefined ? undefined : await this.tableFor(config), records: group });
    }
    return out;
  }
}

/** A batch's rows to write, folded from its records at or above the checkpoint `before`; what its report says but the counts. */
interface BatchPlan {
  readonly report: Omit<BatchReport, 'checkpointAfter' | 'upserted' | 'deleted'>;
  readonly writes: { readonly table: ProjectionTable; readonly changes: RowChange[] }[];
}

function planBatch(batch: RecordBatch<ProjectedEvent>, groups: readonly TableGroup[], before: bigint): BatchPlan {
  const applied: string[] = [];
  const passedOver: { offset: string; reason: string }[] = [];
  const writes: BatchPlan['writes'] = [];
  let alreadyApplied = 0;
  let unprojectable = 0;
  for (const group of groups) {
    const fresh = recordsFrom(group.records, before);
    alreadyApplied += group.records.length - fresh.length;
    if (fresh.length === 0) continue;
    if (group.table === undefined) {
      unprojectable += fresh.length;
      continue;
    }
    const folded = foldRecordChanges(group.table, fresh);
    writes.push({ table: group.table, changes: folded.changes });
    unprojectable += folded.skipped.length;
    const unusable = new Set(folded.skipped.map((s) => s.record.offset));
    for (const r of fresh) if (!unusable.has(r.offset)) applied.push(r.offset);
    for (const s of folded.skipped) passedOver.push({ offset: s.record.offset, reason: s.reason });
  }
  return {
    report: {
      topic: batch.topic,
      partition: batch.partition,
      checkpointBefore: before.toString(),
      appliedOffsets: applied,
      alreadyApplied,
      unprojectable,
      passedOver,
    },
    writes,
  };
}

/** Personal fields of erased data subjects become the marker before they are written (see erased-personal-fields.ts). */
async function maskErasedSubjects(tx: SqlExecutor, table: ProjectionTable, changes: readonly RowChange[]): Promise<RowChange[]> {
  const docs = await maskErasedPersonalFields(
    tx,
    table.config,
    changes.map((c) => c.doc),
  );
  return changes.map((change, i) => (docs[i] === change.doc ? change : { ...change, doc: docs[i] as Record<string, unknown> }));
}
