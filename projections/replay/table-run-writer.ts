/**
 * A replay's writer for a shadow table: each partition's records are folded as they are read (ChangeFold), so a run
 * keeps each record's newest event and the mode its events give, not every event; a record updated fifty times
 * costs the run one decoded event, and the events it superseded are garbage as soon as their batch is taken. The run
 * is then written as the table projection writes a batch, with the shadow's checkpoint (TableProjection.applyFoldedRun).
 *
 * The fold needs to know where the shadow is before it takes a record: records below the checkpoint are applied
 * already and are left out, so `begin` reads the checkpoints before each pass, and the write fails with DB_CONFLICT
 * when the checkpoint is no longer where the run began. A record whose newest event cannot be projected needs its
 * events folded one by one (row-changes.ts), which the run no longer holds: they are read again from the log.
 */
import type { ProjectedEvent, RecordBatch } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SqlExecutor } from '../../src/store/sql-client';
import type { EntityConfig } from '../../src/tenant';
import { ChangeFold, foldRecordChanges, type RowChange } from '../postgres/row-changes';
import { recordsFrom } from '../postgres/checkpoint-store';
import type { TableProjection } from '../postgres/table-projection';
import { checkpointsOf, type Positions } from './checkpoints';
import type { RunReader, ShadowWriter } from './replay-target';

/** What a partition's run holds while it is read. */
interface TableRun {
  readonly fold: ChangeFold;
  readonly topic: string;
  /** The shadow's checkpoint when the run began: its records are those at or above it. */
  readonly from: bigint;
  /** The offset after the run's last record (of any entity); undefined while it took none. */
  end: bigint | undefined;
  highWatermark: string;
  /** Events of other entities sharing the topic, per `tenant/entity`: not the shadow's. */
  readonly others: Map<string, { tenant: string; entity: string; events: number }>;
}

export interface TableRunWriterOptions {
  readonly projection: TableProjection;
  /** The shadow's configuration: its events are the ones projected. */
  readonly config: EntityConfig;
  /** Where the shadow's checkpoints are read. */
  readonly sql: SqlExecutor;
  readonly topic: string;
  readonly logger: Logger;
}

export class TableRunWriter implements ShadowWriter {
  private checkpoints: Positions = new Map();
  private readonly runs = new Map<number, TableRun>();

  constructor(private readonly o: TableRunWriterOptions) {}

  async begin(): Promise<void> {
    this.checkpoints = await checkpointsOf(this.o.sql, this.o.projection.projector, this.o.topic);
  }

  take(batch: RecordBatch<ProjectedEvent>): void {
    let run = this.runs.get(batch.partition);
    if (run === undefined) {
      run = {
        fold: new ChangeFold(),
        topic: batch.topic,
        from: this.checkpoints.get(batch.partition) ?? 0n,
        end: undefined,
        highWatermark: '0',
        others: new Map(),
      };
      this.runs.set(batch.partition, run);
    }
    run.highWatermark = batch.highWatermark;
    const { tenant, entity } = this.o.config;
    const records = recordsFrom(batch.records, run.from);
    for (const record of records) {
      const event = record.value;
      if (event.tenant === tenant && event.entity === entity) run.fold.add(record);
      else {
        const id = `${event.tenant}/${event.entity}`;
        const other = run.others.get(id);
        if (other) other.events += 1;
        else run.others.set(id, { tenant: event.tenant, entity: event.entity, events: 1 });
      }
    }
    const last = records[records.length - 1];
    if (last !== undefined) run.end = BigInt(last.offset) + 1n;
  }

  async write(partition: number, reread: RunReader): Promise<void> {
    const run = this.runs.get(partition);
    this.runs.delete(partition);
    if (run?.end === undefined) return;
    // The next run of the partition is taken while this one is written: it begins where this one ends (should this
    // write fail, the pass fails with it).
    this.checkpoints.set(partition, run.end);
    for (const other of run.others.values()) this.o.logger.warn(other, 'events of an entity with no configuration; passed over');
    const table = await this.o.projection.tableFor(this.o.config);
    const { changes, unusable } = run.fold.changes(table);
    const all: RowChange[] = changes;
    if (unusable.size > 0) {
      const records = (await reread(partition, run.from, run.end)).filter(
        (r) => r.value.tenant === this.o.config.tenant && r.value.entity === this.o.config.entity && unusable.has(r.value.key),
      );
      const inOrder = foldRecordChanges(table, records);
      all.push(...inOrder.changes);
      for (const s of inOrder.skipped)
        this.o.logger.warn({ topic: run.topic, partition, offset: s.record.offset, reason: s.reason }, 'event not projectable; passed over');
    }
    await this.o.projection.applyFoldedRun({
      topic: run.topic,
      partition,
      highWatermark: run.highWatermark,
      from: run.from,
      end: run.end,
      table,
      changes: all,
    });
  }
}
