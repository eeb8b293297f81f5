/**
 * The Postgres table projection without the log: applies one batch of a persistence topic partition to the
 * entity tables in one transaction, together with the partition's checkpoint. Records below the checkpoint
 * were applied before (the log redelivers after a crash between the database commit and the offset commit)
 * and are skipped, so every event takes effect exactly once. The projector (table-projector.ts) feeds it
 * from a consumer group; a rebuild could feed it from a replay.
 */
import type { EntityEvent, LogRecord, RecordBatch } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import type { EntityConfig, EntityConfigSource } from '../../src/tenant';
import { underCheckpoints } from './checkpoint-store';
import { maskErasedPersonalFields } from '../erased-personal-fields';
import { foldRecordChanges, type RowChange } from './row-changes';
import { writeRowChanges } from './row-writer';
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
}

/** A batch's records of one entity, in offset order; `table` is undefined for an entity with no configuration. */
interface TableGroup {
  readonly table: ProjectionTable | undefined;
  readonly records: LogRecord<EntityEvent>[];
}

export class TableProjection {
  private readonly tables = new Map<string, { signature: string; ready: Promise<ProjectionTable> }>();

  /** The checkpoints' name. */
  readonly projector: string;

  constructor(private readonly options: TableProjectionOptions) {
    this.projector = options.projector;
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

  async apply(batch: RecordBatch<EntityEvent>): Promise<BatchReport> {
    return (await this.applyRound([batch]))[0] as BatchReport;
  }

  /**
   * Applies batches of several partitions (a round, see BatchRounds) in one transaction: their checkpoints are
   * claimed in one statement and advanced in one, each batch's rows written as `apply` writes them.
   */
  async applyRound(batches: readonly RecordBatch<EntityEvent>[]): Promise<BatchReport[]> {
    const { sql, projector } = this.options;
    const groups = await Promise.all(batches.map((b) => this.groupByTable(b.records)));
    return sql.transaction(async (tx) => {
      const { written, afters } = await underCheckpoints(tx, projector, batches, async (befores) => {
        const reports: Omit<BatchReport, 'checkpointAfter'>[] = [];
        for (const [i, batch] of batches.entries()) reports.push(await this.writeBatch(tx, batch, groups[i] ?? [], befores[i] as bigint));
        return reports;
      });
      return written.map((report, i) => ({ ...report, checkpointAfter: (afters[i] as bigint).toString() }));
    });
  }

  /** One batch's rows, inside the round's transaction: records below its checkpoint `before` were applied already. */
  private async writeBatch(
    tx: SqlExecutor,
    batch: RecordBatch<EntityEvent>,
    groups: TableGroup[],
    before: bigint,
  ): Promise<Omit<BatchReport, 'checkpointAfter'>> {
    const { logger } = this.options;
    const applied: string[] = [];
    let alreadyApplied = 0;
    let unprojectable = 0;
    let upserted = 0;
    let deleted = 0;
    for (const group of groups) {
      const fresh = freshRecords(group.records, before);
      alreadyApplied += group.records.length - fresh.length;
      if (fresh.length === 0) continue;
      if (group.table === undefined) {
        unprojectable += fresh.length;
        continue;
      }
      const folded = foldRecordChanges(group.table, fresh);
      const counts = await writeRowChanges(tx, group.table, await maskErasedSubjects(tx, group.table, folded.changes));
      upserted += counts.upserted;
      deleted += counts.deleted;
      unprojectable += folded.skipped.length;
      const skipped = new Set(folded.skipped.map((s) => s.record.offset));
      for (const r of fresh) if (!skipped.has(r.offset)) applied.push(r.offset);
      for (const s of folded.skipped)
        logger.warn({ topic: batch.topic, partition: batch.partition, offset: s.record.offset, reason: s.reason }, 'event not projectable; passed over');
    }
    return {
      topic: batch.topic,
      partition: batch.partition,
      checkpointBefore: before.toString(),
      appliedOffsets: applied,
      alreadyApplied,
      unprojectable,
      upserted,
      deleted,
    };
  }

  /** The batch's records per entity, in offset order; `table` is undefined for an entity with no configuration. */
  private async groupByTable(records: readonly LogRecord<EntityEvent>[]): Promise<TableGroup[]> {
    const groups = new Map<string, LogRecord<EntityEvent>[]>();
    for (const record of records) {
      const id = `${record.value.tenant}/${record.value.entity}`;
      const group = groups.get(id);
      if (group) group.push(record);
      else groups.set(id, [record]);
    }
    const out = [];
    for (const group of groups.values()) {
      const { tenant, entity } = (group[0] as LogRecord<EntityEvent>).value;
      const config = await this.options.entities.get(tenant, entity);
      if (config === undefined) this.options.logger.warn({ tenant, entity, events: group.length }, 'events of an entity with no configuration; passed over');
      out.push({ table: config === undefined ? undefined : await this.tableFor(config), records: group });
    }
    return out;
  }
}

/** The records at or above the checkpoint; in offset order, so usually all of them, found without converting each offset. */
function freshRecords(records: LogRecord<EntityEvent>[], checkpoint: bigint): LogRecord<EntityEvent>[] {
  const first = records[0];
  if (first === undefined || BigInt(first.offset) >= checkpoint) return records;
  return records.filter((r) => BigInt(r.offset) >= checkpoint);
}

/** Personal fields of erased data subjects become the marker before they are written (see erased-personal-fields.ts). */
async function maskErasedSubjects(tx: SqlExecutor, table: ProjectionTable, changes: RowChange[]): Promise<RowChange[]> {
  const docs = await maskErasedPersonalFields(
    tx,
    table.config,
    changes.map((c) => c.doc),
  );
  return changes.map((change, i) => (docs[i] === change.doc ? change : { ...change, doc: docs[i] as Record<string, unknown> }));
}
