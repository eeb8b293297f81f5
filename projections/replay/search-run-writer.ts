/**
 * A replay's writer for a shadow search index: of each partition's run it keeps each record's newest event as it
 * reads (newest-documents.ts, as the live search projector reads a batch), then writes those documents, and the
 * checkpoint after them. The writes go through the port's own connections, so no transaction is held while they run
 * (writers each holding one connection and waiting for another could starve); the checkpoint follows, and the
 * index's version fence makes a run written again after a failure harmless.
 */
import type { ProjectedEvent, RecordBatch } from '../../src/log';
import type { SearchDocument, SearchIndex } from '../../src/search';
import type { SqlClient } from '../../src/store/sql-client';
import type { EntityConfig } from '../../src/tenant';
import { maskErasedDocuments } from '../erased-personal-fields';
import { advanceCheckpoint, claimCheckpoint, recordsFrom } from '../postgres/checkpoint-store';
import { documentOf, keepNewest } from '../search/newest-documents';
import { checkpointsOf, type Positions } from './checkpoints';
import type { ShadowWriter } from './replay-target';

interface SearchRun {
  readonly topic: string;
  readonly newest: Map<string, ProjectedEvent>;
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
}

export class SearchRunWriter implements ShadowWriter {
  private checkpoints: Positions = new Map();
  private readonly runs = new Map<number, SearchRun>();

  constructor(private readonly o: SearchRunWriterOptions) {}

  async begin(): Promise<void> {
    this.checkpoints = await checkpointsOf(this.o.sql, this.o.projector, this.o.topic);
  }

  take(batch: RecordBatch<ProjectedEvent>): void {
    let run = this.runs.get(batch.partition);
    if (run === undefined) this.runs.set(batch.partition, (run = { topic: batch.topic, newest: new Map(), end: undefined }));
    const records = recordsFrom(batch.records, this.checkpoints.get(batch.partition) ?? 0n);
    const { tenant, entity } = this.o.config;
    for (const { value } of records) if (value.tenant === tenant && value.entity === entity) keepNewest(run.newest, value.key, value);
    const last = records[records.length - 1];
    if (last !== undefined) run.end = BigInt(last.offset) + 1n;
  }

  async write(partition: number): Promise<void> {
    const run = this.runs.get(partition);
    this.runs.delete(partition);
    if (run?.end === undefined) return;
    const next = run.end;
    this.checkpoints.set(partition, next); // the partition's next run is taken while this one is written
    const upserts: SearchDocument[] = [];
    const deletes: string[] = [];
    for (const event of run.newest.values()) {
      const doc = documentOf(event);
      if (doc === undefined) deletes.push(event.key);
      else upserts.push(doc);
    }
    if (upserts.length > 0) await this.o.search.upsert(this.o.shadow, await maskErasedDocuments(this.o.sql, this.o.config, upserts));
    if (deletes.length > 0) await this.o.search.delete(this.o.shadow, deletes);
    const ref = { projector: this.o.projector, topic: run.topic, partition };
    await this.o.sql.transaction(async (tx) => {
      if ((await claimCheckpoint(tx, ref)) < next) await advanceCheckpoint(tx, ref, next);
    });
  }
}
