import type { WriteLog } from '../log';
import type { WriterSchemaLookup } from '../log/registry-schemas';
import type { LogTopicsService } from './log-topics';

/** One record of a topic, its value decoded from Avro with the schema it was written with. */
export interface TopicMessage {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  /** The record's timestamp (ISO 8601). */
  readonly timestamp: string;
  /** Registry id of the writer schema; `TopicMessages.schemas` holds its definition. */
  readonly schemaId: number;
  /** The decoded value as JSON: longs as numbers, bytes as base64. */
  readonly value: unknown;
}

export interface TopicMessages {
  readonly topic: string;
  /** Newest first. */
  readonly messages: readonly TopicMessage[];
  /** Each writer schema the messages name, by registry id. */
  readonly schemas: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface TopicMessagesDeps {
  readonly topics: Pick<LogTopicsService, 'requireVisible'>;
  readonly log: Pick<WriteLog, 'replay' | 'topicOffsets'>;
  readonly writerSchemas: WriterSchemaLookup;
}

/** At most this many messages are read per partition and answered, whatever is asked. */
export const MAX_MESSAGES = 100;

/**
 * A tenant's latest records on one of its persistence topics, decoded with their writer schemas. Only what the
 * log holds is shown, nothing decrypted: a sensitive field stays the ciphertext its producer sent (the pipeline
 * refuses plaintext there). Other topics (deltas, rejections) are shared by tenants and may hold refused
 * plaintext, so no scope reaches them here.
 */
export class TopicMessagesService {
  constructor(private readonly deps: TopicMessagesDeps) {}

  async latest(tenant: string, topic: string, limit: number): Promise<TopicMessages> {
    await this.deps.topics.requireVisible({ kind: 'tenant', tenant }, topic);
    const wanted = Math.max(1, Math.min(MAX_MESSAGES, Math.floor(limit)));
    const offsets = await this.deps.log.topicOffsets(topic);
    const from = offsets.map((p) => {
      const start = BigInt(p.high) - BigInt(wanted);
      return { partition: p.partition, offset: (start > BigInt(p.low) ? start : BigInt(p.low)).toString() };
    });
    const read: TopicMessage[] = [];
    await this.deps.log.replay<unknown>({
      topic,
      from: { kind: 'offsets', offsets: from },
      handleBatch: async (batch) => {
        for (const r of batch.records) {
          // The topic is the tenant's; a record naming another tenant would still not be shown to it.
          if (!isOfTenant(r.value, tenant)) continue;
          read.push({
            partition: r.partition,
            offset: r.offset,
            key: r.key,
            timestamp: new Date(r.timestamp).toISOString(),
            schemaId: r.schemaId,
            value: asJson(r.value),
          });
        }
      },
    });
    const messages = read.sort((a, b) => b.timestamp.localeCompare(a.timestamp) || a.partition - b.partition).slice(0, wanted);
    const ids = [...new Set(messages.map((m) => m.schemaId))];
    const schemas = Object.fromEntries(await Promise.all(ids.map(async (id) => [String(id), await this.deps.writerSchemas(id)] as const)));
    return { topic, messages, schemas };
  }
}

const isOfTenant = (value: unknown, tenant: string): boolean =>
  typeof value === 'object' && value !== null && (value as { tenant?: unknown }).tenant === tenant;

/** A decoded Avro value as JSON: bytes and fixed (Buffers) as base64, big longs as decimal strings. */
function asJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, shown: unknown) {
      const raw = this[key];
      if (Buffer.isBuffer(raw)) return raw.toString('base64');
      return typeof shown === 'bigint' ? shown.toString() : shown;
    }),
  );
}
