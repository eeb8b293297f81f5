/**
 * The Avro schemas of deltabroker's records (`schemas/*.avsc`), loaded once, with their TypeScript types
 * (generated into `schema-types.ts` from the same files, so the two cannot drift apart).
 */
import { DeltabrokerError } from '../errors';
import avro from 'avsc';
import { readSchemaDefinitions, schemasDir } from './schema-files';
import type { RecordTypes } from './schema-types';

export type {
  ActionEvent,
  ActionOperation,
  Actor,
  DeltaEnvelope,
  DeltaOutcome,
  EntityEvent,
  Operation,
  Origin,
  RecordTypes,
  Rejection,
  SourceRecord,
  SubjectErased,
} from './schema-types';
export { schemasDir };

export const RECORD_NAMES = [
  'DeltaEnvelope',
  'EntityEvent',
  'ActionEvent',
  'Rejection',
  'DeltaOutcome',
  'SubjectErased',
] as const satisfies readonly (keyof RecordTypes)[];
export type RecordName = (typeof RECORD_NAMES)[number];

/** One record schema: its JSON definition (what the registry stores) and its avsc type. `T` is phantom. */
export interface RecordSchema<T = unknown> {
  readonly name: string;
  /** The parsed `.avsc` JSON, as registered in a schema registry. */
  readonly definition: Readonly<Record<string, unknown>>;
  readonly type: avro.Type;
  /** Type-only marker tying the schema to its TypeScript type; never set at run time. */
  readonly __type?: T;
}

export type RecordSchemas = { readonly [K in RecordName]: RecordSchema<RecordTypes[K]> };

let cached: RecordSchemas | undefined;

/** The record schemas, parsed and checked once (from `dir`, or the project's `schemas/`). */
export function loadSchemas(dir?: string): RecordSchemas {
  if (dir === undefined && cached) return cached;
  const definitions = readSchemaDefinitions(dir);
  const out: Partial<Record<RecordName, RecordSchema>> = {};
  for (const name of RECORD_NAMES) {
    const definition = definitions[name] as Record<string, unknown> | undefined;
    if (!definition)
      throw new DeltabrokerError('DB_INTERNAL', `schema ${name}.avsc is missing from ${dir ?? schemasDir()}`, { stage: 'startup', rule: 'installed-schemas' });
    out[name] = { name, definition, type: avro.Type.forSchema(definition as avro.Schema) };
  }
  const loaded = out as RecordSchemas;
  if (dir === undefined) cached = loaded;
  return loaded;
}

/** A schema for an Avro definition built elsewhere (e.g. a per-entity payload schema from configuration). */
export function recordSchema<T>(definition: Readonly<Record<string, unknown>>): RecordSchema<T> {
  const type = avro.Type.forSchema(definition as avro.Schema);
  return { name: type.name ?? String(definition.type), definition, type };
}

/** The fields of an EntityEvent the projections read: the table and the search index, live, replayed or verified. */
const PROJECTED_EVENT_FIELDS = ['eventId', 'tenant', 'entity', 'operation', 'key', 'version', 'payload', 'recordedAt'] as const;

/** What a projection reads of an EntityEvent. A whole EntityEvent is one. */
export type ProjectedEvent = Pick<RecordTypes['EntityEvent'], (typeof PROJECTED_EVENT_FIELDS)[number]>;

const projectedEventSchemas = new WeakMap<RecordSchema, RecordSchema<ProjectedEvent>>();

/**
 * A reader schema of EntityEvent with only the fields a projection reads: avsc's resolver skips the others (the
 * delta's id, the actor, the origin) instead of building their strings and objects, which a replay reading a
 * whole topic alone pays for every event. Never registered: readers only. One object per EntityEvent schema, as
 * the codec keeps its resolvers per reader schema object.
 */
export function projectedEventSchema(schemas: Pick<RecordSchemas, 'EntityEvent'>): RecordSchema<ProjectedEvent> {
  const full = schemas.EntityEvent;
  let projected = projectedEventSchemas.get(full);
  if (projected === undefined) {
    const keep = new Set<string>(PROJECTED_EVENT_FIELDS);
    const fields = (full.definition.fields as readonly { name: string }[]).filter((field) => keep.has(field.name));
    const definition = { ...full.definition, fields };
    projected = { name: full.name, definition, type: avro.Type.forSchema(definition as avro.Schema) };
    projectedEventSchemas.set(full, projected);
  }
  return projected;
}
