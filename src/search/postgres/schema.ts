/**
 * Tables of the Postgres search adapter, in their own schema: a catalog of index definitions, and per index
 * `id text primary key, source jsonb, version bigint, search tsvector` (generated from every string field)
 * with GIN indexes on `source` (jsonb_path_ops, for `term`/containment) and on `search` (full text), plus one
 * generated `tsv_<field>` column per string field, so per-field matching and ranking never re-analyse text.
 */
import type { SqlExecutor } from '../../store/sql-client';
import { quoteIdent, quoteQualified } from '../../store/sql-identifier';
import { validateIndexDefinition } from '../index-definition';
import type { IndexDefinition } from '../search-port';
import { searchVectorExpression, wordColumn, wordsExpression } from './field-sql';

/** Serialises DDL of concurrent processes on the same database (any constant unique to this module). */
const DDL_LOCK_KEY = 7_316_240_921;
const CATALOG = '_indexes';

export const tableOf = (schema: string, index: string): string => quoteQualified(index, schema);

export async function ensureCatalog(tx: SqlExecutor, schema: string): Promise<void> {
  await tx.query(`select pg_advisory_xact_lock(${DDL_LOCK_KEY})`);
  await tx.query(`create schema if not exists ${quoteIdent(schema, 'schema')}`);
  await tx.query(
    `create table if not exists ${quoteQualified(CATALOG, schema)} (name text primary key, definition jsonb not null, updated_at timestamptz not null default now())`,
  );
}

/** The stored definition of `name`, or undefined when there is none (or no catalog yet). Takes no locks. */
export async function findDefinition(sql: SqlExecutor, schema: string, name: string): Promise<IndexDefinition | undefined> {
  const catalog = await sql.query<{ present: boolean }>(`select to_regclass($1) is not null as present`, [quoteQualified(CATALOG, schema)]);
  return catalog.rows[0]?.present === true ? loadDefinition(sql, schema, name) : undefined;
}

async function loadDefinition(tx: SqlExecutor, schema: string, name: string): Promise<IndexDefinition | undefined> {
  const { rows } = await tx.query<{ definition: IndexDefinition }>(`select definition from ${quoteQualified(CATALOG, schema)} where name = $1`, [name]);
  return rows[0] === undefined ? undefined : validateIndexDefinition(rows[0].definition);
}

async function addSearchColumn(tx: SqlExecutor, schema: string, index: IndexDefinition): Promise<void> {
  const table = tableOf(schema, index.name);
  await tx.query(`alter table ${table} add column search tsvector generated always as (${searchVectorExpression(index.fields)}) stored`);
  // Unnamed: Postgres picks `<table>_search_idx`, shortened when the table name is long.
  await tx.query(`create index on ${table} using gin (search)`);
}

/** String fields with word columns: a sensitive one (ciphertext) has none. */
const stringFields = (index: IndexDefinition): string[] => index.fields.filter((f) => f.type === 'string' && f.sensitive !== true).map((f) => f.name);

/**
 * Creates the index table, or migrates it to `index`: word columns for string fields added or removed, and
 * the `search` column regenerated when the set of string fields changed (each rewrites the table once).
 */
export async function applyDefinition(tx: SqlExecutor, schema: string, index: IndexDefinition): Promise<void> {
  await ensureCatalog(tx, schema);
  const stored = await loadDefinition(tx, schema, index.name);
  const table = tableOf(schema, index.name);
  const wanted = stringFields(index);
  const present = stored === undefined ? [] : stringFields(stored);
  if (stored === undefined) {
    await tx.query(`create table ${table} (id text primary key, source jsonb not null, version bigint not null)`);
    await tx.query(`create index on ${table} using gin (source jsonb_path_ops)`);
  }
  for (const name of present.filter((n) => !wanted.includes(n))) await tx.query(`alter table ${table} drop column ${wordColumn(name)}`);
  for (const name of wanted.filter((n) => !present.includes(n))) {
    await tx.query(`alter table ${table} add column ${wordColumn(name)} tsvector generated always as (${wordsExpression(name)}) stored`);
  }
  if (stored === undefined || searchVectorExpression(stored.fields) !== searchVectorExpression(index.fields)) {
    if (stored !== undefined) await tx.query(`alter table ${table} drop column search`);
    await addSearchColumn(tx, schema, index);
  }
  await tx.query(
    `insert into ${quoteQualified(CATALOG, schema)} (name, definition) values ($1, $2::jsonb)
     on conflict (name) do update set definition = excluded.definition, updated_at = now()`,
    [index.name, JSON.stringify(index)],
  );
}
