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

/** Batches kept per partition and reader schema: enough for the slowest reader of a burst's tail. */
const BATCHES_PER_PARTITION = 64;

export class DecodedBatches {
  private readonly byLog = new WeakMap<PartitionLog, Map<RecordSchema | undefined, Map<number, DecodedStoredBatch>>>();

  get(log: PartitionLog, schema: RecordSchema | undefined, baseOffset: number, lastOffset: number): DecodedStoredBatch | undefined {
    const hit = this.byLog.get(log)?.get(schema)?.get(baseOffset);
    return hit?.lastOffset === lastOffset ? hit : undefined;
  }

  put(log: PartitionLog, schema: RecordSchema | undefined, baseOffset: number, batch: DecodedStoredBatch): void {
    let bySchema = this.byLog.get(log);
    if (!bySchema) this.byLog.set(log, (bySchema = new Map()));
    let batches = bySchema.get(schema);
    if (!batches) bySchema.set(schema, (batches = new Map()));
    batches.set(baseOffset, batch);
    // Maps iterate in insertion order: the first key is the batch stored longest ago.
    if (batches.size > BATCHES_PER_PARTITION) batches.delete(batches.keys().next().value as number);
  }
}
