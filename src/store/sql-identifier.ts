/**
 * SQL identifiers (schema, table, column names). They never come from a request: they come from entity
 * configuration, are validated here, and are always emitted double-quoted. Values never go through this
 * module; they are bind parameters.
 */
import { DeltabrokerError } from '../errors';

/** Postgres truncates names longer than NAMEDATALEN - 1 = 63 bytes; we refuse them instead. */
export const MAX_IDENTIFIER_LENGTH = 63;

/** ASCII letter or underscore, then letters, digits, underscores. Case is kept (names are always quoted). */
export const IDENTIFIER_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function isIdentifier(name: unknown): name is string {
  return typeof name === 'string' && name.length <= MAX_IDENTIFIER_LENGTH && IDENTIFIER_PATTERN.test(name);
}

/** Throws unless `name` is a safe identifier. `what` names it in the error (`table`, `column`, …). */
export function assertIdentifier(name: unknown, what = 'identifier'): asserts name is string {
  if (!isIdentifier(name)) {
    throw new DeltabrokerError(
      'DB_INTERNAL',
      `invalid SQL ${what} ${JSON.stringify(name)}: use 1-${MAX_IDENTIFIER_LENGTH} letters, digits or underscores, not starting with a digit`,
      { field: what, rule: 'identifier', stage: 'sql' },
    );
  }
}

/** `name` validated and double-quoted. The pattern admits no quote, so there is nothing to escape. */
export function quoteIdent(name: string, what = 'identifier'): string {
  assertIdentifier(name, what);
  return `"${name}"`;
}

/** `"schema"."table"`, or just `"table"` when no schema is given (the connection's search_path applies). */
export function quoteQualified(table: string, schema?: string): string {
  const t = quoteIdent(table, 'table');
  return schema === undefined ? t : `${quoteIdent(schema, 'schema')}.${t}`;
}
