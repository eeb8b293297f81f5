/**
 * Avro values in the Confluent wire format, with schemas kept in a (Confluent-compatible) schema registry.
 * Encoding registers the writer schema under its subject once and caches the id; decoding fetches the
 * writer schema by id and never throws for bad bytes: it answers why they are bad.
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import type { RecordSchema } from '../schemas';
import type { DecodeReason } from '../rejection-reasons';
import { frame, unframe } from './wire';

export type Decoded =
  | { readonly ok: true; readonly schemaId: number; readonly value: unknown }
  | { readonly ok: false; readonly reason: DecodeReason; readonly message: string };

export interface ValueCodecOptions {
  readonly registryUrl: string;
  /** HTTP basic credentials for the registry. */
  readonly auth?: { username: string; password: string };
  /** Compatibility level set on a subject when this client registers its first schema (default BACKWARD). */
  readonly compatibility?: keyof typeof COMPATIBILITY;
}

export class ValueCodec {
  private readonly registry: SchemaRegistry;
  private readonly ids = new WeakMap<RecordSchema, Map<string, Promise<number>>>();
  private readonly resolvers = new WeakMap<RecordSchema, Map<number, avro.Resolver>>();
  private readonly compatibility: COMPATIBILITY;

  constructor(o: ValueCodecOptions) {
    this.registry = new SchemaRegistry({ host: o.registryUrl, clientId: 'deltabroker', ...(o.auth && { auth: o.auth }) });
    this.compatibility = COMPATIBILITY[o.compatibility ?? 'BACKWARD'];
  }

  /** The registry id of `schema` under `subject`, registering it when the subject does not hold it yet. */
  schemaId(subject: string, schema: RecordSchema): Promise<number> {
    // Keyed by schema object, then subject: this runs per encoded record, so no key is built from the schema text.
    let bySubject = this.ids.get(schema);
    if (!bySubject) {
      bySubject = new Map();
      this.ids.set(schema, bySubject);
    }
    let id = bySubject.get(subject);
    if (!id) {
      const ids = bySubject;
      id = this.lookupOrRegister(subject, JSON.stringify(schema.definition));
      ids.set(subject, id);
      id.catch(() => ids.delete(subject));
    }
    return id;
  }

  async encode<T>(subject: string, schema: RecordSchema<T>, value: T): Promise<Buffer> {
    const id = await this.schemaId(subject, schema);
    return frame(id, schema.type.toBuffer(value));
  }

  /**
   * Decodes a record value. Bad bytes answer `{ ok: false }`; a registry that cannot be reached throws,
   * since that is not the record's fault and the record must be read again later.
   */
  async decode(value: Buffer | null, readerSchema?: RecordSchema): Promise<Decoded> {
    const framed = unframe(value);
    if (!framed.ok) return framed;
    const { schemaId, payload } = framed;
    let writer: avro.Type;
    try {
      const schema: unknown = await this.registry.getSchema(schemaId);
      if (!avro.Type.isType(schema)) {
        return { ok: false, reason: 'DECODE_UNSUPPORTED_SCHEMA', message: `schema ${schemaId} is not an Avro schema` };
      }
      writer = schema as avro.Type;
    } catch (e) {
      if ((e as { status?: unknown }).status === 404) {
        return { ok: false, reason: 'DECODE_UNKNOWN_SCHEMA', message: `schema id ${schemaId} is not in the registry` };
      }
      throw e;
    }
    let resolver: avro.Resolver | undefined;
    if (readerSchema) {
      try {
        resolver = this.resolver(schemaId, writer, readerSchema);
      } catch (e) {
        return { ok: false, reason: 'DECODE_INCOMPATIBLE_SCHEMA', message: `schema ${schemaId}: ${(e as Error).message}` };
      }
    }
    const reader = readerSchema?.type ?? writer;
    try {
      const decoded: unknown = resolver ? reader.fromBuffer(payload, resolver) : reader.fromBuffer(payload);
      if (!reader.isValid(decoded)) throw new Error('decoded value breaks its schema');
      return { ok: true, schemaId, value: decoded };
    } catch (e) {
      return { ok: false, reason: 'DECODE_INVALID_AVRO', message: `schema ${schemaId}: ${(e as Error).message}` };
    }
  }

  /** Cached per reader schema object and writer schema id: this runs once per decoded record. */
  private resolver(schemaId: number, writer: avro.Type, readerSchema: RecordSchema): avro.Resolver {
    let byWriter = this.resolvers.get(readerSchema);
    if (!byWriter) {
      byWriter = new Map();
      this.resolvers.set(readerSchema, byWriter);
    }
    let resolver = byWriter.get(schemaId);
    if (!resolver) {
      resolver = readerSchema.type.createResolver(writer);
      byWriter.set(schemaId, resolver);
    }
    return resolver;
  }

  private async lookupOrRegister(subject: string, schema: string): Promise<number> {
    const confluent = { type: SchemaType.AVRO, schema } as const;
    try {
      return await this.registry.getRegistryIdBySchema(subject, confluent);
    } catch (e) {
      // The client turns the registry's 404 (not under this subject yet) into a plain
      // ConfluentSchemaRegistryError; HTTP failures keep their `status`, network failures their `code`.
      if ((e as Error).name !== 'ConfluentSchemaRegistryError') throw e;
    }
    const { id } = await this.registry.register(confluent, { subject, compatibility: this.compatibility });
    return id;
  }
}
