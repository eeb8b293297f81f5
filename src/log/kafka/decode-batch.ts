/** Turns the raw messages of a fetched batch into decoded records and, for bad bytes, Rejection records. */
import { randomUUID } from 'node:crypto';
import type { KafkaMessage } from 'kafkajs';
import type { Headers, LogRecord } from '../port';
import { DECODE_STAGE } from '../rejection-reasons';
import type { Rejection } from '../schema-types';
import type { RecordSchema } from '../schemas';
import type { ValueCodec } from './value-codec';

export interface DecodedBatch<T> {
  readonly records: LogRecord<T>[];
  readonly rejections: Rejection[];
}

export async function decodeMessages<T>(
  codec: ValueCodec,
  topic: string,
  partition: number,
  messages: readonly KafkaMessage[],
  readerSchema: RecordSchema<T> | undefined,
): Promise<DecodedBatch<T>> {
  const records: LogRecord<T>[] = [];
  const rejections: Rejection[] = [];
  for (const m of messages) {
    const key = m.key === null || m.key === undefined ? null : m.key.toString('utf8');
    const decoded = await codec.decode(m.value, readerSchema);
    if (decoded.ok) {
      records.push({
        topic,
        partition,
        offset: m.offset,
        key,
        value: decoded.value as T,
        headers: headersOf(m.headers),
        timestamp: Number(m.timestamp),
        schemaId: decoded.schemaId,
      });
    } else {
      rejections.push({
        id: randomUUID(),
        stage: DECODE_STAGE,
        reason: decoded.reason,
        message: decoded.message,
        deltaId: null,
        requestId: null,
        tenant: null,
        entity: null,
        key: null,
        source: { topic, partition, offset: Number(m.offset), key },
        raw: m.value && m.value.length > 0 ? m.value.toString('base64') : null,
        rejectedAt: Date.now(),
      });
    }
  }
  return { records, rejections };
}

function headersOf(raw: KafkaMessage['headers']): Headers {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined) continue;
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (last !== undefined) out[name] = Buffer.isBuffer(last) ? last.toString('utf8') : String(last);
  }
  return out;
}
