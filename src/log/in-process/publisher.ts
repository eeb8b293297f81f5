/**
 * Publishing straight into the broker's partition logs: values framed by the shared codec, partitions chosen
 * as kafkajs and the Java clients choose them, each partition's records appended as record batches v2 (what a
 * Kafka producer would have sent), and the answer given once the appends are durable under the broker's fsync
 * policy (the LogManager fsyncs every partition written in the same tick once: concurrent publishes share it).
 */
import type { EmbeddedKafkaParts } from '../../embedded/kafka';
import { ErrorCode } from '../../embedded/kafka/protocol/errors';
import { BATCH_HEADER_SIZE, encodeRecordBatch, type RecordInput } from '../../embedded/kafka/protocol/record-batch';
import type { PartitionLog } from '../../embedded/kafka/storage/partition-log';
import type { SubjectStrategy, ValueCodec } from '../codec';
import type { Headers, OutgoingRecord, LogPosition } from '../port';
import { brokerRefused, brokerStopped, notDurable, unknownPartition, unknownTopic } from './log-errors';
import { Partitioner } from './partitioner';

/** Upper bound of a record's framing in a batch: length, attributes, timestamp and offset deltas, lengths. */
const RECORD_OVERHEAD = 36;
const HEADER_OVERHEAD = 10;

/** The records of one partition in this publish, in input order. */
interface PartitionRecords {
  readonly log: PartitionLog;
  readonly indexes: number[];
  readonly inputs: RecordInput[];
  readonly sizes: number[];
}

/** A transactional producer's stamp on the batches it appends: its id and epoch, and its sequences per partition. */
export interface TransactionalStamp {
  readonly producerId: number;
  readonly producerEpoch: number;
  /** The sequence of the first of `count` records for the partition, taking them. */
  takeSequences(log: PartitionLog, count: number): number;
}

export class Publisher {
  private readonly partitioner = new Partitioner();

  constructor(
    private readonly broker: EmbeddedKafkaParts,
    private readonly codec: ValueCodec,
    private readonly subjectFor: SubjectStrategy,
  ) {}

  /**
   * Appends the records, as batches of a transaction when `stamp` is given (its partitions already added to it);
   * `partitions` is `partitionsOf(records)` when the caller has it already.
   */
  async publish(records: readonly OutgoingRecord[], stamp?: TransactionalStamp, partitions = this.partitionsOf(records)): Promise<LogPosition[]> {
    if (records.length === 0) return [];
    const ids = await this.schemaIds(records);
    // From here to the appends nothing awaits, so no other publish interleaves and the topics cannot change.
    if (this.broker.stopping.aborted) throw brokerStopped();
    const byPartition = new Map<PartitionLog, PartitionRecords>();
    records.forEach((r, i) => {
      const log = this.broker.logs.partition(r.topic, partitions[i]!);
      if (!log) throw unknownPartition(r.topic, partitions[i]!);
      const value = this.codec.encodeWithId(ids[i]!, r.schema, r.value);
      let slot = byPartition.get(log);
      if (!slot) byPartition.set(log, (slot = { log, indexes: [], inputs: [], sizes: [] }));
      slot.indexes.push(i);
      slot.sizes.push(recordSize(r.key, value, r.headers));
      // The key and headers stay text: the batch encoder writes them as UTF-8 straight into the batch.
      slot.inputs.push({ key: r.key, value, timestamp: r.timestamp, headers: r.headers });
    });

    // Every batch is built and checked before the first append, so a refused publish writes nothing.
    const appends = [...byPartition.values()].flatMap((slot) => batchesOf(slot, stamp));
    for (const a of appends) {
      if (a.batch.length > a.log.config.maxMessageBytes) {
        throw brokerRefused(
          `a record batch of ${a.batch.length} bytes for ${a.log.topic}/${a.log.partition}`,
          ErrorCode.MESSAGE_TOO_LARGE,
          `max.message.bytes is ${a.log.config.maxMessageBytes}`,
        );
      }
    }
    const offsets: string[] = new Array<string>(records.length);
    for (const a of appends) {
      const result = a.log.append([a.batch], true);
      if (result.errorCode !== ErrorCode.NONE) throw brokerRefused(`an append to ${a.log.topic}/${a.log.partition}`, result.errorCode);
      a.indexes.forEach((index, n) => (offsets[index] = String(result.baseOffset + n)));
    }
    for (const log of byPartition.keys()) this.broker.logs.appended(log);
    try {
      await this.broker.logs.waitDurable();
    } catch (e) {
      throw notDurable(e);
    }
    return records.map((r, i) => ({ topic: r.topic, partition: partitions[i]!, offset: offsets[i]! }));
  }

  /** The partition each record goes to, in input order (by its key unless it names one). */
  partitionsOf(records: readonly OutgoingRecord[]): number[] {
    return records.map((r) => this.partitionOf(r));
  }

  private partitionOf(r: OutgoingRecord): number {
    const topic = this.broker.logs.topic(r.topic);
    if (!topic) throw unknownTopic(r.topic);
    const count = topic.partitions.length;
    if (r.partition === undefined) return this.partitioner.partition(r.topic, r.key, count);
    if (!Number.isInteger(r.partition) || r.partition < 0 || r.partition >= count) throw unknownPartition(r.topic, r.partition);
    return r.partition;
  }

  /** Each record's schema id; only ids not looked up before wait for the registry (once per schema and subject). */
  private async schemaIds(records: readonly OutgoingRecord[]): Promise<number[]> {
    const subjects: string[] = [];
    const known: (number | undefined)[] = [];
    // A publish is runs of records of one topic and schema: each run builds its subject and looks its id up once
    // (a subject string built and hashed per record was 1 % of the burst).
    let previous: OutgoingRecord | undefined;
    for (const r of records) {
      if (previous === undefined || r.topic !== previous.topic || r.schema !== previous.schema || r.subject !== previous.subject) {
        const subject = r.subject ?? this.subjectFor(r.topic);
        subjects.push(subject);
        known.push(this.codec.knownSchemaId(subject, r.schema));
      } else {
        subjects.push(subjects[subjects.length - 1]!);
        known.push(known[known.length - 1]);
      }
      previous = r;
    }
    if (known.every((id) => id !== undefined)) return known;
    return Promise.all(records.map(async (r, i) => known[i] ?? this.codec.schemaId(subjects[i]!, r.schema)));
  }
}

/** An upper bound of a record's bytes in a batch. */
function recordSize(key: string | null, value: Buffer, headers: Headers | undefined): number {
  let size = RECORD_OVERHEAD + value.length + (key === null ? 0 : Buffer.byteLength(key, 'utf8'));
  for (const name in headers) size += HEADER_OVERHEAD + Buffer.byteLength(name, 'utf8') + Buffer.byteLength(headers[name]!, 'utf8');
  return size;
}

/** The partition's records as record batches within the topic's `max.message.bytes` (one unless they are big). */
function batchesOf(slot: PartitionRecords, stamp: TransactionalStamp | undefined): { log: PartitionLog; batch: Buffer; indexes: number[] }[] {
  const limit = slot.log.config.maxMessageBytes - BATCH_HEADER_SIZE;
  const out: { log: PartitionLog; batch: Buffer; indexes: number[] }[] = [];
  let start = 0;
  while (start < slot.inputs.length) {
    let end = start + 1;
    let bytes = slot.sizes[start]!;
    while (end < slot.inputs.length && bytes + slot.sizes[end]! <= limit) bytes += slot.sizes[end++]!;
    const records = slot.inputs.slice(start, end);
    const producer = stamp && {
      producerId: stamp.producerId,
      producerEpoch: stamp.producerEpoch,
      baseSequence: stamp.takeSequences(slot.log, records.length),
      transactional: true,
    };
    out.push({ log: slot.log, batch: encodeRecordBatch({ records, ...producer }), indexes: slot.indexes.slice(start, end) });
    start = end;
  }
  return out;
}
