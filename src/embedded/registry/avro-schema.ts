/** Parsing of the schema text clients send: Avro only, kept in a compact canonical JSON text. */
import avro from 'avsc';
import { registryErrors } from './errors';

export interface ParsedSchema {
  /** The schema as stored and served: the client's JSON re-serialized without whitespace. */
  readonly canonical: string;
  readonly type: avro.Type;
}

export function parseAvroSchema(text: unknown, schemaType: unknown, references: unknown): ParsedSchema {
  if (schemaType !== undefined && schemaType !== null && schemaType !== 'AVRO') {
    throw registryErrors.invalidSchema(`schema type ${String(schemaType)} is not supported; this registry stores AVRO schemas only`);
  }
  if (Array.isArray(references) && references.length > 0) {
    throw registryErrors.invalidSchema('schema references are not supported by the embedded registry');
  }
  if (typeof text !== 'string' || text.trim() === '') throw registryErrors.invalidSchema('the `schema` field must be a non-empty string');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw registryErrors.invalidSchema(`not JSON (${(e as Error).message})`);
  }
  try {
    // A fresh type registry per schema: names of one schema never clash with another's.
    const type = avro.Type.forSchema(json as avro.Schema);
    return { canonical: JSON.stringify(json), type };
  } catch (e) {
    throw registryErrors.invalidSchema((e as Error).message);
  }
}

/** The avsc type of an already-stored (hence valid) canonical schema text. */
export const typeOf = (canonical: string): avro.Type => avro.Type.forSchema(JSON.parse(canonical) as avro.Schema);
