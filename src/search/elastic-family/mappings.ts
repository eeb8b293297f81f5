/**
 * Elasticsearch mappings derived from an index definition. Strings are `text` (standard analyzer) with a
 * `keyword` sub-field for exact matches, sorting and aggregations, like Elasticsearch's dynamic mapping;
 * `dynamic: false` keeps undeclared keys in `_source` without indexing them, as the Postgres adapter does.
 * The definition itself travels in the mapping's `_meta`, so any process can read it back.
 */
import type { IndexDefinition, SearchFieldType } from '../search-port';

/** Lucene's term limit is 32,766 bytes; 8,191 characters of 4-byte UTF-8 fit under it. */
const KEYWORD_IGNORE_ABOVE = 8191;

export type FieldMapping = Record<string, unknown>;

const MAPPING_OF: Record<SearchFieldType, FieldMapping> = {
  string: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE } } },
  integer: { type: 'long' },
  number: { type: 'double' },
  boolean: { type: 'boolean' },
  timestamp: { type: 'date', format: 'strict_date_optional_time||epoch_millis' },
  // Stored and returned, never indexed: object fields are not queryable on either adapter.
  object: { type: 'object', enabled: false },
};

export interface IndexMappings {
  dynamic: false;
  _meta: { deltabroker_definition: IndexDefinition };
  properties: Record<string, FieldMapping>;
}

/** Ciphertext is never analysed: a keyword, with the `keyword` sub-field every string field has. */
const SENSITIVE_MAPPING: FieldMapping = {
  type: 'keyword',
  ignore_above: KEYWORD_IGNORE_ABOVE,
  fields: { keyword: { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE } },
};

export function mappingsFor(index: IndexDefinition): IndexMappings {
  const properties: Record<string, FieldMapping> = {};
  for (const field of index.fields) properties[field.name] = field.sensitive === true ? SENSITIVE_MAPPING : MAPPING_OF[field.type];
  return { dynamic: false, _meta: { deltabroker_definition: index }, properties };
}

export function definitionFromMappings(mappings: unknown): IndexDefinition | undefined {
  const meta = (mappings as { _meta?: { deltabroker_definition?: IndexDefinition } } | undefined)?._meta;
  return meta?.deltabroker_definition;
}

/**
 * A timestamp as the engines' `strict_date_optional_time` reads it. The shared validator also accepts a space
 * between date and time and a lower-case `z` (PostgreSQL reads both); the engines refuse them, so those two
 * are written as `T` and `Z`. The instant is the same; `_source` holds the rewritten form.
 */
export function engineTimestamp(value: string): string {
  const time = value.charAt(10) === ' ' ? `${value.slice(0, 10)}T${value.slice(11)}` : value;
  return time.endsWith('z') ? `${time.slice(0, -1)}Z` : time;
}

/** A document's source as the engine accepts it: timestamp fields through `engineTimestamp`. */
export function engineSource(definition: IndexDefinition, source: Record<string, unknown>): Record<string, unknown> {
  let out = source;
  for (const field of definition.fields) {
    const value = source[field.name];
    if (field.type !== 'timestamp' || typeof value !== 'string') continue;
    const rewritten = engineTimestamp(value);
    if (rewritten !== value) out = { ...out, [field.name]: rewritten };
  }
  return out;
}
