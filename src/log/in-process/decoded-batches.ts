/**
 * Decode once, fan out: the table projector, the search projector and both action emitters read every
 * persistence record, each in its own consumer group at its own pace. The first of them to read a stored batch
 * decodes it (record batch, headers, Avro value); the others take the same decoded records from here. A batch
 * at a base offset of a partition log never changes, so an entry is valid for as long as that log object
 * lives (a deleted and re-created topic is a new log). Readers must treat the records as read-only.
 */
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import type { LogRecord } from '../port';
import type { Rejection } from '../schema-types';
import type { RecordSchema } from '../schemas';

/** Every record of one stored batch, decoded with one reader schema. */
export interface DecodedStoredBatch {
  readonly lastOffset: number;
  readonly records: readonly LogRecord<unknown>[];
  readonly rejections: readonly Rejection[];
}

/**
 * Records kept in all (about a kilobyte each decoded): the readers of a persistence partition follow its tail
 * within a few batches of each other, so a small window serves them, and memory stays bounded under a burst.
 */
const MAX_RECORDS = 4096;

interface Place {
  readonly log: PartitionLog;
  readonly schema: RecordSchema | undefined;
  readonly baseOffset: number;
}

export class DecodedBatches {
  private readonly byLog = new WeakMap<PartitionLog, Map<RecordSchema | undefined, Map<number, DecodedStoredBatch>>>();
  /** Every kept batch, oldest first (a Map iterates in insertion order). */
  private readonly kept = new Map<DecodedStoredBatch, Place>();
  private records = 0;

  get(log: PartitionLog, schema: RecordSchema | undefined, baseOffset: number, lastOffset: number): DecodedStoredBatch | undefined {
    const hit = this.byLog.get(log)?.get(schema)?.get(baseOffset);
    return hit?.lastOffset === lastOffset ? hit : undefined;
  }

  put(log: PartitionLog, schema: RecordSchema | undefined, baseOffset: number, batch: DecodedStoredBatch): void {
    let bySchema = this.byLog.get(log);
    if (!bySchema) this.byLog.set(log, (bySchema = new Map<RecordSchema | undefined, Map<number, DecodedStoredBatch>>()));
    let batches = bySchema.get(schema);
    if (!batches) bySchema.set(schema, (batches = new Map<number, DecodedStoredBatch>()));
    const replaced = batches.get(baseOffset);
    if (replaced) this.forget(replaced);
    batches.set(baseOffset, batch);
    this.kept.set(batch, { log, schema, baseOffset });
    this.records += batch.records.length;
    while (this.records > MAX_RECORDS && this.kept.size > 1) {
      const [oldest, place] = this.kept.entries().next().value as [DecodedStoredBatch, Place];
      const batchesThere = this.byLog.get(place.log)?.get(place.schema);
      if (batchesThere?.get(place.baseOffset) === oldest) batchesThere.delete(place.baseOffset);
      this.forget(oldest);
    }
  }

  private forget(batch: DecodedStoredBatch): void {
    if (this.kept.delete(batch)) this.records -= batch.records.length;
  }
}
