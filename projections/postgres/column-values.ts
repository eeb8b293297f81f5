/**
 * A field's column value taken from a document in JavaScript, exactly as `fieldValueSql` (table-schema.ts) takes
 * it from the stored `_doc` in SQL: the value when its JSON type matches the field, else null. The row writer
 * sends these as typed arrays, so PostgreSQL does not take every field out of every document again (that and
 * re-parsing each document were half the upsert's execution).
 *
 * The documents are what JSON.parse gave, written back with JSON.stringify; a number's text in `_doc` is
 * therefore JavaScript's shortest form, which is why the integer rule below equals the SQL pattern on it.
 */
import { TIMESTAMP_PATTERN, type FieldColumn } from './table-schema';

const TIMESTAMP = new RegExp(TIMESTAMP_PATTERN);

/** The largest integer with 18 digits is below 1e18: the SQL rule `^-?[0-9]{1,18}$` on the number's text. */
const INTEGER_LIMIT = 1e18;

/**
 * The column's value in `doc`: a string (string, timestamp), a number (integer, number), a boolean, a plain
 * object (object), or null when the field is absent or of another JSON type. Own fields only: a field named
 * like an Object.prototype member is not inherited from it.
 */
export function columnValue(column: FieldColumn, doc: Readonly<Record<string, unknown>>): unknown {
  if (!Object.hasOwn(doc, column.name)) return null;
  const value = doc[column.name];
  switch (column.type) {
    case 'string':
      return typeof value === 'string' ? value : null;
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < INTEGER_LIMIT ? value : null;
    case 'number':
      // JSON.stringify writes a number beyond double's range (JSON.parse made it Infinity) as null.
      return typeof value === 'number' && Number.isFinite(value) ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'timestamp':
      return typeof value === 'string' && TIMESTAMP.test(value) ? value : null;
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
  }
}
