/**
 * Turns the raw records of a fetched batch (whatever read them) into decoded records and, for bad bytes,
 * Rejection records of stage `decode`; and turns Rejection records into what a write log publishes.
 */
import { randomUUID } from 'node:crypto';
import type { Headers, LogRecord, OutgoingRecord } from '../port';
import type { DecodeReason } from '../rejection-reasons';
import { DECODE_STAGE } from '../topology';
import type { Rejection } from '../schema-types';
import { loadSchemas, type RecordSchema } from '../schemas';
import type { ValueCodec } from './value-codec';

/** The topic undecodable records are reported on unless an adapter is told otherwise. */
export const DEFAULT_REJECTIONS_TOPIC = 'rejections';

/** One record as read from a partition, value still in its wire bytes. */
export interface RawRecord {
  readonly offset: string;
  readonly key: string | null;
  readonly value: Buffer | null;
  readonly headers: Headers;
  readonly timestamp: number;
}

export interface DecodedBatch<T> {
  readonly records: LogRecord<T>[];
  readonly rejections: Rejection[];
}

export async function decodeRawRecords<T>(
  codec: ValueCodec,
  topic: string,
  partition: number,
  raws: readonly RawRecord[],
  readerSchema: RecordSchema<T> | undefined,
): Promise<DecodedBatch<T>> {
  const records: LogRecord<T>[] = [];
  const rejections: Rejection[] = [];
  const decoded = await codec.decodeAll(
    raws.map((r) => r.value),
    readerSchema,
  );
  raws.forEach((m, i) => {
    const d = decoded[i]!;
    if (d.ok) {
      records.push({ topic, partition, offset: m.offset, key: m.key, value: d.value as T, headers: m.headers, timestamp: m.timestamp, schemaId: d.schemaId });
    } else {
      rejections.push(decodeRejection(topic, partition, Number(m.offset), m.key, d.reason, d.message, m.value));
    }
  });
  return { records, rejections };
}

/** A Rejection record (stage `decode`) for the record at `offset`. */
export function decodeRejection(
  topic: string,
  partition: number,
  offset: number,
  key: string | null,
  reason: DecodeReason,
  message: string,
  raw: Buffer | null,
): Rejection {
  return {
    id: randomUUID(),
    stage: DECODE_STAGE,
    reason,
    message,
    deltaId: null,
    requestId: null,
    tenant: null,
    entity: null,
    key: null,
    source: { topic, partition, offset, key },
    raw: raw && raw.length > 0 ? raw.toString('base64') : null,
    rejectedAt: Date.now(),
  };
}

/** The records that report `rejections` on `topic`, keyed by the rejected record's key. */
export function rejectionRecords(topic: string, rejections: readonly Rejection[]): OutgoingRecord<Rejection>[] {
  const schema = loadSchemas().Rejection;
  return rejections.map((value) => ({ topic, key: value.source?.key ?? null, value, schema }));
}
