/**
 * A replay's writer for a shadow search index: of each partition's run it keeps each record's newest event as it
 * reads (newest-documents.ts, as the live search projector reads a batch), then writes those documents, and the
 * checkpoint after them. The writes go through the port's own connections, so no transaction is held while they run
 * (writers each holding one connection and waiting for another could starve); the checkpoint follows, and the
 * index's version fence makes a run written again after a failure harmless.
 *
 * An event whose document the index refuses is passed over, as the live projector passes it over: the record's newest
 * event the index takes is written instead, found among the run's events read again from the log (the run no longer
 * holds them).
 */
import type { ProjectedEvent, RecordBatch } from '../../src/log';
import type { Logger } from '../../src/logger';
import { documentRefusal, isDocumentRefusal, type IndexDefinition, type SearchDocument, type SearchIndex } from '../../src/search';
import type { SqlClient } from '../../src/store/sql-client';
import type { EntityConfig } from '../../src/tenant';
import { maskErasedDocuments } from '../erased-personal-fields';
import { advanceCheckpoint, claimCheckpoint, recordsFrom } from '../postgres/checkpoint-store';
import { indexWriteOf, keepNewest, newestIndexable, type IndexWrite } from '../search/newest-documents';
import { indexDefinitionOf } from '../search/search-projector';
import { checkpointsOf, type Positions } from './checkpoints';
import type { RunReader, ShadowWriter } from './replay-target';

interface SearchRun {
  readonly topic: string;
  readonly newest: Map<string, ProjectedEvent>;
  /** The shadow's checkpoint when the run began: its records are those at or above it. */
  readonly from: bigint;
  /** The offset after the run's last record (of any entity); undefined while it took none. */
  end: bigint | undefined;
}

export interface SearchRunWriterOptions {
  readonly search: SearchIndex;
  /** The shadow index's name. */
  readonly shadow: string;
  readonly config: EntityConfig;
  /** Where the shadow's checkpoints are. */
  readonly sql: SqlClient;
  readonly projector: string;
  readonly topic: string;
  readonly logger: Logger;
}

export class SearchRunWriter implements ShadowWriter {
  private checkpoints: Positions = new Map();
  private readonly runs = new Map<number, SearchRun>();
  private readonly definition: IndexDefinition;

  constructor(private readonly o: SearchRunWriterOptions) {
    this.definition = indexDefinitionOf(o.config);
  }

  async begin(): Promise<void> {
    this.checkpoints = await checkpointsOf(this.o.sql, this.o.projector, this.o.topic);
  }

  take(batch: RecordBatch<ProjectedEvent>): void {
    let run = this.runs.get(batch.partition);
    if (run === undefined) {
      run = { topic: batch.topic, newest: new Map(), from: this.checkpoints.get(batch.partition) ?? 0n, end: undefined };
      this.runs.set(batch.partition, run);
    }
    const records = recordsFrom(batch.records, run.from);
    const { tenant, entity } = this.o.config;
    for (const { value } of records) if (value.tenant === tenant && value.entity === entity) keepNewest(run.newest, value.key, value);
    const last = records[records.length - 1];
    if (last !== undefined) run.end = BigInt(last.offset) + 1n;
  }

  async write(partition: number, reread: RunReader): Promise<void> {
    const run = this.runs.get(partition);
    this.runs.delete(partition);
    if (run?.end === undefined) return;
    const next = run.end;
    this.checkpoints.set(partition, next); // the partition's next run is taken while this one is written
    // Each record's write, unchecked: the index checks the documents, and when it refuses one they are checked here
    // and the refused records' newest events it takes are found in the run read again.
    const writes = new Map<string, IndexWrite>();
    const refused = new Set<string>();
    for (const event of run.newest.values()) {
      const write = indexWriteOf(event);
      if (write.kind === 'refused') refused.add(event.key);
      else writes.set(event.key, write);
    }
    if (refused.size > 0) await this.passOverRefused(run, partition, refused, reread, writes);
    try {
      await this.writeAll(writes);
    } catch (error) {
      if (!isDocumentRefusal(error)) throw error;
      const checked = new Set([...writes].filter(([, w]) => w.kind === 'upsert' && documentRefusal(this.definition, w.doc) !== undefined).map(([key]) => key));
      await this.passOverRefused(run, partition, checked, reread, writes);
      await this.writeAll(writes);
    }
    const ref = { projector: this.o.projector, topic: run.topic, partition };
    await this.o.sql.transaction(async (tx) => {
      if ((await claimCheckpoint(tx, ref)) < next) await advanceCheckpoint(tx, ref, next);
    });
  }

  private async writeAll(writes: ReadonlyMap<string, IndexWrite>): Promise<void> {
    const upserts: SearchDocument[] = [];
    const deletes: string[] = [];
    for (const write of writes.values()) {
      if (write.kind === 'upsert') upserts.push(write.doc);
      else if (write.kind === 'delete') deletes.push(write.id);
    }
    if (upserts.length > 0) await this.o.search.upsert(this.o.shadow, await maskErasedDocuments(this.o.sql, this.o.config, upserts));
    if (deletes.length > 0) await this.o.search.delete(this.o.shadow, deletes);
  }

  /**
   * In `writes`, each record of `refused` (whose newest event the index refuses) gets the write of its newest event
   * the index takes, from the run read again, or none when it takes none of the run's events.
   */
  private async passOverRefused(
    run: SearchRun,
    partition: number,
    refused: ReadonlySet<string>,
    reread: RunReader,
    writes: Map<string, IndexWrite>,
  ): Promise<void> {
    for (const key of refused) writes.delete(key);
    const { tenant, entity } = this.o.config;
    const byKey = new Map<string, Awaited<ReturnType<RunReader>>>();
    for (const record of await reread(partition, run.from, run.end as bigint)) {
      const { value } = record;
      if (value.tenant !== tenant || value.entity !== entity || !refused.has(value.key)) continue;
      const records = byKey.get(value.key);
      if (records) records.push(record);
      else byKey.set(value.key, [record]);
    }
    for (const [key, records] of byKey) {
      const { write, passedOver } = newestIndexable(records, this.definition);
      for (const { record, reason } of passedOver)
        this.o.logger.warn({ topic: run.topic, partition, offset: record.offset, reason }, 'event not indexable; passed over');
      if (write) writes.set(key, write);
    }
  }
}
