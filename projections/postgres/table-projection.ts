/**
 * The Postgres table projection without the log: applies one batch of a persistence topic partition to the
 * entity tables in one transaction, together with the partition's checkpoint. Records below the checkpoint
 * were applied before (the log redelivers after a crash between the database commit and the offset commit)
 * and are skipped, so every event takes effect exactly once. The projector (table-projector.ts) feeds it
 * from a consumer group; a rebuild could feed it from a replay.
 */
import { assertPositionHeld, type EntityEvent, type LogRecord, type RecordBatch } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import type { EntityConfig, EntityConfigSource } from '../../src/tenant';
import { advanceCheckpoint, claimCheckpoint, type PartitionRef } from './checkpoint-store';
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
    const { sql, logger, projector } = this.options;
    const ref: PartitionRef = { projector, topic: batch.topic, partition: batch.partition };
    const groups = await this.groupByTable(batch.records);
    const last = batch.records[batch.records.length - 1];
    const batchEnd = last === undefined ? 0n : BigInt(last.offset) + 1n;

    const report = await sql.transaction(async (tx) => {
      const before = await claimCheckpoint(tx, ref);
      assertPositionHeld(projector, batch, before); // a checkpoint beyond the log's end: the topic was recreated
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
      const after = batchEnd > before ? batchEnd : before;
      if (after > before) await advanceCheckpoint(tx, ref, after);
      return {
        checkpointBefore: before.toString(),
        checkpointAfter: after.toString(),
        appliedOffsets: applied,
        alreadyApplied,
        unprojectable,
        upserted,
        deleted,
      };
    });
    return { topic: batch.topic, partition: batch.partition, ...report };
  }

  /** The batch's records per entity, in offset order; `table` is undefined for an entity with no configuration. */
  private async groupByTable(records: readonly LogRecord<EntityEvent>[]): Promise<{ table: ProjectionTable | undefined; records: LogRecord<EntityEvent>[] }[]> {
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
