/**
 * Writes folded row changes into a projection table with a few multi-row statements (one round trip per
 * mode and chunk, never one per row): the rows travel as one jsonb parameter and come back as a record set
 * (`jsonb_to_recordset`). Each statement only moves a row forward: an upsert updates a row only when its
 * version is newer, a delete only removes an older row. Identifiers are validated and quoted (table-schema),
 * every value is inside the parameter.
 */
import type { SqlExecutor } from '../../src/store/sql-client';
import { quoteIdent } from '../../src/store/sql-identifier';
import type { ChangeMode, RowChange } from './row-changes';
import { fieldValueSql, type ProjectionTable } from './table-schema';

/**
 * Rows per statement: a whole log batch (a few thousand records) or a replay run's share in one or two round
 * trips and plans, while one parameter stays a couple of megabytes.
 */
export const ROWS_PER_STATEMENT = 5000;

export interface WriteCounts {
  upserted: number;
  deleted: number;
}

export async function writeRowChanges(tx: SqlExecutor, table: ProjectionTable, changes: readonly RowChange[]): Promise<WriteCounts> {
  const counts: WriteCounts = { upserted: 0, deleted: 0 };
  const modes: ChangeMode[] = ['replace', 'merge', 'delete'];
  for (const mode of modes) {
    const rows = changes.filter((c) => c.mode === mode);
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      const result = await tx.query(mode === 'delete' ? deleteSql(table) : upsertSql(table, mode), [JSON.stringify(chunk.map(asRecord))]);
      if (mode === 'delete') counts.deleted += result.rowCount;
      else counts.upserted += result.rowCount;
    }
  }
  return counts;
}

/** Recordset columns of the key: `_k0`, `_k1`, … (field names never start with an underscore). */
const keyParam = (i: number): string => quoteIdent(`_k${i}`, 'column');

function asRecord(change: RowChange): Record<string, unknown> {
  const row: Record<string, unknown> = {
    _doc: change.doc,
    _version: change.version,
    _event_id: change.eventId,
    _position: change.position,
    _updated_at: change.updatedAt,
  };
  change.key.forEach((value, i) => (row[`_k${i}`] = value));
  return row;
}

const SYSTEM_PARAMS = '"_doc" jsonb, "_version" bigint, "_event_id" text, "_position" text, "_updated_at" timestamptz';

function upsertSql(table: ProjectionTable, mode: 'replace' | 'merge'): string {
  const keyIndex = (name: string): number => table.keyColumns.findIndex((k) => k.name === name);
  const valueColumns = table.fieldColumns.filter((c) => keyIndex(c.name) < 0);
  const recordset = `jsonb_to_recordset($1::jsonb) as r(${table.keyColumns.map((k, i) => `${keyParam(i)} ${k.sqlType}`).join(', ')}, ${SYSTEM_PARAMS})`;
  const insertColumns = [...table.keyColumns, ...valueColumns].map((c) => c.ident);
  const selectValues = [...table.keyColumns.map((_, i) => `r.${keyParam(i)}`), ...valueColumns.map((c) => fieldValueSql(c, 'r."_doc"'))];
  // A merge keeps the stored value of every field the update does not carry; a replace takes the new row.
  // The field name inside '…' is a validated identifier.
  const setValue = (ident: string, name: string): string =>
    mode === 'merge' ? `${ident} = case when excluded."_doc" ? '${name}' then excluded.${ident} else t.${ident} end` : `${ident} = excluded.${ident}`;
  const assignments = [
    ...valueColumns.map((c) => setValue(c.ident, c.name)),
    mode === 'merge' ? '"_doc" = t."_doc" || excluded."_doc"' : '"_doc" = excluded."_doc"',
    '"_version" = excluded."_version"',
    '"_event_id" = excluded."_event_id"',
    '"_position" = excluded."_position"',
    '"_updated_at" = excluded."_updated_at"',
  ];
  return `insert into ${table.qualifiedName} as t (${insertColumns.join(', ')}, "_doc", "_version", "_event_id", "_position", "_updated_at")
    select ${selectValues.join(', ')}, r."_doc", r."_version", r."_event_id", r."_position", r."_updated_at" from ${recordset}
    on conflict (${table.keyColumns.map((k) => k.ident).join(', ')}) do update set ${assignments.join(', ')}
    where t."_version" < excluded."_version"`;
}

function deleteSql(table: ProjectionTable): string {
  const recordset = `jsonb_to_recordset($1::jsonb) as r(${table.keyColumns.map((k, i) => `${keyParam(i)} ${k.sqlType}`).join(', ')}, "_version" bigint)`;
  const matches = table.keyColumns.map((k, i) => `t.${k.ident} = r.${keyParam(i)}`).join(' and ');
  return `delete from ${table.qualifiedName} as t using ${recordset} where ${matches} and t."_version" < r."_version"`;
}
