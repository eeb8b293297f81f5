/** kafkajs's fetched messages as the codec's raw records: key as text, the last value of each header. */
import type { KafkaMessage } from 'kafkajs';
import type { RawRecord } from '../codec';
import type { Headers } from '../port';

export const toRawRecords = (messages: readonly KafkaMessage[]): RawRecord[] =>
  messages.map((m) => ({
    offset: m.offset,
    key: m.key === null || m.key === undefined ? null : m.key.toString('utf8'),
    value: m.value,
    headers: headersOf(m.headers),
    timestamp: Number(m.timestamp),
  }));

function headersOf(raw: KafkaMessage['headers']): Headers {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined) continue;
    const last = Array.isArray(value) ? value.at(-1) : value;
    if (last !== undefined) out[name] = Buffer.isBuffer(last) ? last.toString('utf8') : String(last);
  }
  return out;
}
