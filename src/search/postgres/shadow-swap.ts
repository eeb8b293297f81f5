/**
 * Shadow builds on the Postgres search adapter: a shadow is an index like any other (its own table and catalog
 * entry), and the swap renames its table into the live one's place and moves its catalog entry, in one
 * transaction under the adapter's DDL lock, so a search sees the old table or the new one, never a mix.
 */
import { DeltabrokerError } from '../../errors';
import type { SqlExecutor } from '../../store/sql-client';
import { quoteIdent, quoteQualified } from '../../store/sql-identifier';
import type { IndexDefinition } from '../search-port';
import { applyDefinition, ensureCatalog, findDefinition, tableOf } from './schema';

const CATALOG = '_indexes';

export async function tableExists(sql: SqlExecutor, schema: string, index: string): Promise<boolean> {
  const { rows } = await sql.query<{ present: boolean }>('select to_regclass($1) is not null as present', [tableOf(schema, index)]);
  return rows[0]?.present === true;
}

/** Drops an index's table and catalog entry; the caller's transaction holds the DDL lock (ensureCatalog). */
async function dropLocked(tx: SqlExecutor, schema: string, index: string): Promise<void> {
  await tx.query(`drop table if exists ${tableOf(schema, index)}`);
  await tx.query(`delete from ${quoteQualified(CATALOG, schema)} where name = $1`, [index]);
}

export async function dropIndex(tx: SqlExecutor, schema: string, index: string): Promise<void> {
  await ensureCatalog(tx, schema);
  await dropLocked(tx, schema, index);
}

/** A fresh, empty shadow (an earlier one of the same name is dropped), seeded with `copyOf`'s documents when asked. */
export async function createShadow(tx: SqlExecutor, schema: string, shadow: IndexDefinition, copyOf: string | undefined): Promise<void> {
  await ensureCatalog(tx, schema);
  await dropLocked(tx, schema, shadow.name);
  await applyDefinition(tx, schema, shadow);
  if (copyOf !== undefined && (await tableExists(tx, schema, copyOf))) {
    await tx.query(`insert into ${tableOf(schema, shadow.name)} (id, source, version) select id, source, version from ${tableOf(schema, copyOf)}`);
  }
}

/** Renames the shadow's table to `live` (dropping the live table) and answers the live index's new definition. */
export async function swapShadow(tx: SqlExecutor, schema: string, shadow: string, live: string): Promise<IndexDefinition> {
  await ensureCatalog(tx, schema);
  const definition = await findDefinition(tx, schema, shadow);
  if (definition === undefined || !(await tableExists(tx, schema, shadow))) {
    throw new DeltabrokerError('DB_NOT_FOUND', `no shadow search index ${shadow} to swap in`, { field: 'shadow', rule: 'index-exists', stage: 'search-index' });
  }
  const swapped: IndexDefinition = { ...definition, name: live };
  await dropLocked(tx, schema, live);
  await tx.query(`alter table ${tableOf(schema, shadow)} rename to ${quoteIdent(live, 'table')}`);
  await tx.query(`update ${quoteQualified(CATALOG, schema)} set name = $2, definition = $3::jsonb, updated_at = now() where name = $1`, [
    shadow,
    live,
    JSON.stringify(swapped),
  ]);
  return swapped;
}
