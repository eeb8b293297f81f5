/**
 * Tables of the Postgres search adapter, in their own schema: a catalog of index definitions, and per index
 * `id text primary key, source jsonb, version bigint` plus one generated `tsv_<field>` column per analysed
 * string field, so per-field matching and ranking never re-analyse text. Two GIN indexes: on `source`
 * (jsonb_path_ops, for `term`/containment) and on all word columns together (full text, `allWordsExpression`).
 */
import type { SqlExecutor } from '../../store/sql-client';
import { quoteIdent, quoteQualified } from '../../store/sql-identifier';
import { validateIndexDefinition } from '../index-definition';
import type { IndexDefinition } from '../search-port';
import { allWordsExpression, analysedStringFields, wordColumn, wordsExpression } from './field-sql';

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

/**
 * Replaces the GIN index on all word columns (the one index of the table on `tsvector`). Tables made before
 * that index existed stored those words again in a generated `search` column, indexed instead; it goes too.
 */
async function rebuildWordsIndex(tx: SqlExecutor, table: string, index: IndexDefinition): Promise<void> {
  await tx.query(`alter table ${table} drop column if exists search`);
  const { rows } = await tx.query<{ name: string }>(
    `select i.indexrelid::regclass::text as name from pg_index i join pg_opclass o on o.oid = i.indclass[0]
      where i.indrelid = $1::regclass and o.opcname = 'tsvector_ops'`,
    [table],
  );
  for (const { name } of rows) await tx.query(`drop index ${name}`);
  if (analysedStringFields(index.fields).length > 0) await tx.query(`create index on ${table} using gin (${allWordsExpression(index.fields)})`);
}

async function hasSearchColumn(tx: SqlExecutor, table: string): Promise<boolean> {
  const { rows } = await tx.query<{ present: boolean }>(
    `select exists (select 1 from pg_attribute where attrelid = $1::regclass and attname = 'search' and not attisdropped) as present`,
    [table],
  );
  return rows[0]?.present === true;
}

/**
 * Creates the index table, or migrates it to `index`: word columns for string fields added or removed (each
 * rewrites the table once), and the index on all words rebuilt when the string fields changed.
 */
export async function applyDefinition(tx: SqlExecutor, schema: string, index: IndexDefinition): Promise<void> {
  await ensureCatalog(tx, schema);
  const stored = await loadDefinition(tx, schema, index.name);
  const table = tableOf(schema, index.name);
  const wanted = analysedStringFields(index.fields);
  const present = stored === undefined ? [] : analysedStringFields(stored.fields);
  if (stored === undefined) {
    await tx.query(`create table ${table} (id text primary key, source jsonb not null, version bigint not null)`);
    await tx.query(`create index on ${table} using gin (source jsonb_path_ops)`);
  }
  for (const name of present.filter((n) => !wanted.includes(n))) await tx.query(`alter table ${table} drop column ${wordColumn(name)}`);
  for (const name of wanted.filter((n) => !present.includes(n))) {
    await tx.query(`alter table ${table} add column ${wordColumn(name)} tsvector generated always as (${wordsExpression(name)}) stored`);
  }
  if (stored === undefined || allWordsExpression(stored.fields) !== allWordsExpression(index.fields) || (await hasSearchColumn(tx, table))) {
    await rebuildWordsIndex(tx, table, index);
  }
  await tx.query(
    `insert into ${quoteQualified(CATALOG, schema)} (name, definition) values ($1, $2::jsonb)
     on conflict (name) do update set definition = excluded.definition, updated_at = now()`,
    [index.name, JSON.stringify(index)],
  );
}
