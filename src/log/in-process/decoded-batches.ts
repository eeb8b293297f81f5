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
 * Records kept in all at most (about a kilobyte each decoded). An entry leaves as soon as every other reader of
 * its topic took it, so this bound only matters for a reader far behind the others (it decodes for itself).
 */
const MAX_RECORDS = 4096;

interface Place {
  readonly log: PartitionLog;
  readonly schema: RecordSchema | undefined;
  readonly baseOffset: number;
  /** Readers still expected to take the batch. */
  remaining: number;
}

export class DecodedBatches {
  private readonly byLog = new WeakMap<PartitionLog, Map<RecordSchema | undefined, Map<number, DecodedStoredBatch>>>();
  /** Every kept batch, oldest first (a Map iterates in insertion order). */
  private readonly kept = new Map<DecodedStoredBatch, Place>();
  private records = 0;
  /** Subscriptions reading each topic, by reader schema. */
  private readonly readers = new Map<string, Map<RecordSchema | undefined, number>>();

  /**
   * Counts a subscription among the readers of `topics` with `schema` until the answered function is called.
   * Batches of a topic only one subscription reads are not kept: before, the deltas and outcomes topics' batches
   * filled the window under a burst, and the persistence topic's readers found theirs gone (3.6 decodes per event).
   */
  addReader(topics: readonly string[], schema: RecordSchema | undefined): () => void {
    const add = (n: number): void => {
      for (const topic of topics) {
        let bySchema = this.readers.get(topic);
        if (!bySchema) this.readers.set(topic, (bySchema = new Map<RecordSchema | undefined, number>()));
        const count = (bySchema.get(schema) ?? 0) + n;
        if (count > 0) bySchema.set(schema, count);
        else bySchema.delete(schema);
      }
    };
    add(1);
    let removed = false;
    return () => {
      if (!removed) add(-1);
      removed = true;
    };
  }

  /** The batch another reader decoded; each reader is expected to take it once. */
  get(log: PartitionLog, schema: RecordSchema | undefined, baseOffset: number, lastOffset: number): DecodedStoredBatch | undefined {
    const hit = this.byLog.get(log)?.get(schema)?.get(baseOffset);
    if (hit?.lastOffset !== lastOffset) return undefined;
    const place = this.kept.get(hit);
    if (place && --place.remaining <= 0) this.drop(hit, place);
    return hit;
  }

  /** Offers a batch this reader decoded to the other readers of its topic, if there are any. */
  put(log: PartitionLog, schema: RecordSchema | undefined, baseOffset: number, batch: DecodedStoredBatch): void {
    const others = (this.readers.get(log.topic)?.get(schema) ?? 0) - 1;
    if (others <= 0) return;
    let bySchema = this.byLog.get(log);
    if (!bySchema) this.byLog.set(log, (bySchema = new Map<RecordSchema | undefined, Map<number, DecodedStoredBatch>>()));
    let batches = bySchema.get(schema);
    if (!batches) bySchema.set(schema, (batches = new Map<number, DecodedStoredBatch>()));
    const replaced = batches.get(baseOffset);
    if (replaced) this.forget(replaced);
    batches.set(baseOffset, batch);
    this.kept.set(batch, { log, schema, baseOffset, remaining: others });
    this.records += batch.records.length;
    while (this.records > MAX_RECORDS && this.kept.size > 1) {
      const [oldest, place] = this.kept.entries().next().value as [DecodedStoredBatch, Place];
      this.drop(oldest, place);
    }
  }

  private drop(batch: DecodedStoredBatch, place: Place): void {
    const batchesThere = this.byLog.get(place.log)?.get(place.schema);
    if (batchesThere?.get(place.baseOffset) === batch) batchesThere.delete(place.baseOffset);
    this.forget(batch);
  }

  private forget(batch: DecodedStoredBatch): void {
    if (this.kept.delete(batch)) this.records -= batch.records.length;
  }
}
