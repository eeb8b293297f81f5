/**
 * SQL expressions reading one field out of a stored document (`source jsonb`). Field names come from the
 * validated index definition and are checked again here, so they can be written as string literals.
 * Strings are analysed with the `simple` text search configuration: lower-cased words, no stemming and no
 * stop words, the closest Postgres has to Elasticsearch's `standard` analyzer.
 */
import { createHash } from 'node:crypto';
import { isIdentifier, MAX_IDENTIFIER_LENGTH, quoteIdent } from '../../store/sql-identifier';
import type { FieldRef, Scalar } from '../dsl/ast';
import type { IndexField, SearchFieldType } from '../search-port';

export const TEXT_SEARCH_CONFIG = `'simple'::regconfig`;

function literal(name: string): string {
  if (!isIdentifier(name)) throw new Error(`not a field name: ${JSON.stringify(name)}`);
  return `'${name}'`;
}

export const jsonOf = (name: string): string => `(source -> ${literal(name)})`;
export const textOf = (name: string): string => `(source ->> ${literal(name)})`;
/** How a string field's words are computed: the generation expression of its `tsv_<field>` column. */
export const wordsExpression = (name: string): string => `to_tsvector(${TEXT_SEARCH_CONFIG}, coalesce(${textOf(name)}, ''))`;
/**
 * The stored `tsv_<field>` column holding a string field's words, so queries never re-analyse documents.
 * A name too long for Postgres keeps 50 characters and a hash of the whole name: still unique, still 63.
 */
export function wordColumn(name: string): string {
  const plain = `tsv_${name}`;
  if (plain.length <= MAX_IDENTIFIER_LENGTH) return quoteIdent(plain, 'column');
  return quoteIdent(`tsv_${name.slice(0, 50)}_${createHash('sha256').update(name).digest('hex').slice(0, 8)}`, 'column');
}
export const vectorOf = wordColumn;
/** The words of a string field, as the `search` column and the `@@` operator see them. */
export const tokensOf = (name: string): string => `tsvector_to_array(${vectorOf(name)})`;

const typed = (name: string, jsonType: string, cast: string): string =>
  `(case when jsonb_typeof(${jsonOf(name)}) = '${jsonType}' then ${textOf(name)}${cast} end)`;

/** Elasticsearch reads a timestamp without an offset as UTC; Postgres would use the session's time zone. */
const timestampOf = (name: string): string =>
  `(case when jsonb_typeof(${jsonOf(name)}) <> 'string' then null` +
  ` when ${textOf(name)} ~ '([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)$' and length(${textOf(name)}) > 10 then ${textOf(name)}::timestamptz` +
  ` else ${textOf(name)}::timestamp at time zone 'UTC' end)`;

/** The whole value, typed so that `<`, `=` and `order by` behave as in Elasticsearch (strings by code point). */
export function valueOf(field: Pick<FieldRef, 'name' | 'type'>): string {
  switch (field.type) {
    case 'string':
      return `(${textOf(field.name)} collate "C")`;
    case 'integer':
    case 'number':
      return typed(field.name, 'number', '::numeric');
    case 'boolean':
      return typed(field.name, 'boolean', '::boolean');
    case 'timestamp':
      return timestampOf(field.name);
  }
}

const CASTS: Record<Exclude<SearchFieldType, 'object'>, string> = {
  string: 'text',
  integer: 'numeric',
  number: 'numeric',
  boolean: 'boolean',
  timestamp: 'timestamptz',
};

export const castFor = (field: Pick<FieldRef, 'type'>): string => CASTS[field.type];

/** A bound value typed like `valueOf(field)`. Strings compare with the `C` collation, as `valueOf` does. */
export const typedParam = (field: Pick<FieldRef, 'type'>, value: Scalar, add: (v: unknown, cast: string) => string): string =>
  field.type === 'string' ? `(${add(value, 'text')} collate "C")` : add(value, castFor(field));

/**
 * Every analysed string field's words, for multi-field search: the expression of the table's GIN index on
 * words, which a query must repeat exactly for PostgreSQL to use that index. Computed from the word columns
 * rather than stored, so a write analyses each string once.
 */
export function allWordsExpression(fields: readonly IndexField[]): string {
  const strings = analysedStringFields(fields);
  if (strings.length === 0) return `''::tsvector`;
  return `(${strings.map((name) => wordColumn(name)).join(' || ')})`;
}

/** The names of the string fields that have word columns: a sensitive one (ciphertext) has none. */
export const analysedStringFields = (fields: readonly IndexField[]): string[] =>
  fields.filter((f) => f.type === 'string' && f.sensitive !== true).map((f) => f.name);
