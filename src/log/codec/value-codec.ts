/**
 * Avro values in the Confluent wire format, with schemas kept in a (Confluent-compatible) schema registry.
 * Encoding registers the writer schema under its subject once and caches the id; decoding fetches each writer
 * schema by id once and never throws for bad bytes: it answers why they are bad. Shared by every write-log
 * adapter (kafkajs, in-process), so the bytes are the same whichever wrote them.
 */
import { COMPATIBILITY, SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import avro from 'avsc';
import type { RecordSchema } from '../schemas';
import type { DecodeReason } from '../rejection-reasons';
import { decodedValuesNeedCheck } from './decode-checks';
import { frameEncoded, HEADER_SIZE, NO_VALUE, schemaIdAt } from './wire';

export type Decoded =
  { readonly ok: true; readonly schemaId: number; readonly value: unknown } | { readonly ok: false; readonly reason: DecodeReason; readonly message: string };

export type WriterLookup = { readonly ok: true; readonly type: avro.Type } | { readonly ok: false; readonly reason: DecodeReason; readonly message: string };

export interface ValueCodecOptions {
  readonly registryUrl: string;
  /** HTTP basic credentials for the registry. */
  readonly auth?: { username: string; password: string };
  /** Compatibility level set on a subject when this client registers its first schema (default BACKWARD). */
  readonly compatibility?: keyof typeof COMPATIBILITY;
}

export class ValueCodec {
  private readonly registry: SchemaRegistry;
  /** Per schema object, then subject: the look-up (its id is filled in once it answered). */
  private readonly ids = new WeakMap<RecordSchema, Map<string, { readonly lookup: Promise<number>; id?: number }>>();
  /**
   * Writer schemas by registry id (ids are immutable, so a found schema is kept for good), with whether values
   * they decode still need `isValid` (decode-checks.ts), decided once when the schema is fetched.
   */
  private readonly writers = new Map<number, { readonly type: avro.Type; readonly checked: boolean }>();
  private readonly resolvers = new WeakMap<RecordSchema, Map<number, avro.Resolver>>();
  private readonly compatibility: COMPATIBILITY;

  constructor(o: ValueCodecOptions) {
    this.registry = new SchemaRegistry({
      host: o.registryUrl,
      clientId: 'deltabroker',
      ...(o.auth && { auth: o.auth }),
      // The client retries only GETs by default, so one connection the registry drops (a reused keep-alive
      // socket it closed) failed a registration, and with it the service's start. Every request this codec
      // makes is idempotent (look-up, register, compatibility PUT, schema by id), so each is retried on a
      // network error or a 5xx, with the client's backoff.
      retry: { enableRetry: () => true },
    });
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
    let entry = bySubject.get(subject);
    if (!entry) {
      const ids = bySubject;
      const lookup = this.lookupOrRegister(subject, JSON.stringify(schema.definition));
      const created: { lookup: Promise<number>; id?: number } = { lookup };
      ids.set(subject, created);
      lookup.then(
        (id) => (created.id = id),
        () => ids.delete(subject),
      );
      entry = created;
    }
    return entry.lookup;
  }

  /** The id of `schema` under `subject` when an earlier `schemaId` call has already found it (no promise). */
  knownSchemaId(subject: string, schema: RecordSchema): number | undefined {
    return this.ids.get(schema)?.get(subject)?.id;
  }

  async encode<T>(subject: string, schema: RecordSchema<T>, value: T): Promise<Buffer> {
    return this.encodeWithId(await this.schemaId(subject, schema), schema, value);
  }

  /** Encodes a value whose schema id is already known (throws when the value breaks its schema). */
  encodeWithId<T>(schemaId: number, schema: RecordSchema<T>, value: T): Buffer {
    return frameEncoded(schemaId, (buf, pos) => schema.type.encode(value, buf, pos));
  }

  /**
   * Decodes a record value. Bad bytes answer `{ ok: false }`; a registry that cannot be reached throws,
   * since that is not the record's fault and the record must be read again later.
   */
  async decode(value: Buffer | null, readerSchema?: RecordSchema): Promise<Decoded> {
    return (await this.decodeAll([value], readerSchema))[0]!;
  }

  /**
   * Decodes the values of a batch: the writer schemas not seen yet are fetched once, together, and then every
   * value is decoded in one synchronous loop (no promise per record).
   */
  async decodeAll(values: readonly (Buffer | null)[], readerSchema?: RecordSchema): Promise<Decoded[]> {
    const ids: number[] = [];
    for (const v of values) {
      const id = v === null ? undefined : schemaIdAt(v, 0, v.length);
      if (typeof id === 'number') ids.push(id);
    }
    const failed = await this.fetchWriters(ids);
    return values.map((v) => this.decodeAt(v, 0, v?.length ?? 0, readerSchema, failed));
  }

  /**
   * Fetches the writer schemas of `ids` not known yet (together, once each); answers the look-ups that failed,
   * for `decodeAt` to report. A registry that cannot be reached throws.
   */
  async fetchWriters(ids: Iterable<number>): Promise<ReadonlyMap<number, WriterLookup>> {
    const missing = new Set<number>();
    for (const id of ids) if (!this.writers.has(id)) missing.add(id);
    const failed = new Map<number, WriterLookup>();
    if (missing.size === 0) return failed;
    const found = await Promise.all([...missing].map(async (id) => [id, await this.fetchWriter(id)] as const));
    for (const [id, lookup] of found) {
      if (lookup.ok) this.writers.set(id, { type: lookup.type, checked: decodedValuesNeedCheck(lookup.type) });
      else failed.set(id, lookup);
    }
    return failed;
  }

  /**
   * Decodes the framed value in `buf` from `start` to `end` (exclusive) where it lies, without a view of it:
   * the in-process reader decodes straight from a stored batch. Its writer schema must have been fetched
   * (`fetchWriters`); bad bytes answer `{ ok: false }`.
   */
  decodeAt(buf: Buffer | null, start: number, end: number, readerSchema: RecordSchema | undefined, failed: ReadonlyMap<number, WriterLookup>): Decoded {
    if (buf === null) return NO_VALUE;
    const schemaId = schemaIdAt(buf, start, end);
    if (typeof schemaId !== 'number') return schemaId;
    const known = this.writers.get(schemaId);
    if (!known) {
      const lookup = failed.get(schemaId);
      return lookup && !lookup.ok ? lookup : { ok: false, reason: 'DECODE_UNKNOWN_SCHEMA', message: `schema id ${schemaId} is not in the registry` };
    }
    const writer = known.type;
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
      // decode() reads on from `start` in the whole buffer: bytes beyond `end` belong to other records, so the
      // value must end exactly there (what fromBuffer checks as 'truncated buffer' and 'trailing data').
      const decoded = reader.decode(buf, start + HEADER_SIZE, resolver);
      const value: unknown = decoded.value;
      const offset = decoded.offset;
      if (offset < 0 || offset > end) return { ok: false, reason: 'DECODE_INVALID_AVRO', message: `schema ${schemaId}: truncated buffer` };
      if (offset < end) return { ok: false, reason: 'DECODE_INVALID_AVRO', message: `schema ${schemaId}: trailing data` };
      if (known.checked && !reader.isValid(value))
        return { ok: false, reason: 'DECODE_INVALID_AVRO', message: `schema ${schemaId}: decoded value breaks its schema` };
      return { ok: true, schemaId, value };
    } catch (e) {
      return { ok: false, reason: 'DECODE_INVALID_AVRO', message: `schema ${schemaId}: ${(e as Error).message}` };
    }
  }

  private async fetchWriter(schemaId: number): Promise<WriterLookup> {
    try {
      const schema: unknown = await this.registry.getSchema(schemaId);
      if (!avro.Type.isType(schema)) {
        return { ok: false, reason: 'DECODE_UNSUPPORTED_SCHEMA', message: `schema ${schemaId} is not an Avro schema` };
      }
      return { ok: true, type: schema as avro.Type };
    } catch (e) {
      if ((e as { status?: unknown }).status === 404) {
        return { ok: false, reason: 'DECODE_UNKNOWN_SCHEMA', message: `schema id ${schemaId} is not in the registry` };
      }
      throw e;
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
