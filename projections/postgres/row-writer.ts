/**
 * Writes folded row changes into a projection table with a few multi-row statements (one round trip per
 * mode and chunk, never one per row). The rows travel column by column: an array per key and scalar column
 * (`unnest($n::bigint[])`), one JSON array for the documents (`jsonb_array_elements($n::jsonb)`), zipped into
 * rows by `rows from (…)`. The scalar column values are taken from each document in JavaScript
 * (column-values.ts), so PostgreSQL parses every document once and converts no field of it to text again. Each statement only moves a row forward: an upsert updates a row only when its version
 * is newer, a delete only removes an older row. Identifiers are validated and quoted (table-schema), every value
 * is inside a parameter.
 */
import type { GuardedWrite, SqlExecutor } from '../../src/store/sql-client';
import { quoteIdent } from '../../src/store/sql-identifier';
import { arrayLiteral } from '../../src/store/array-literal';
import { columnValue } from './column-values';
import type { ChangeMode, RowChange } from './row-changes';
import { fieldValueSql, type FieldColumn, type ProjectionTable } from './table-schema';

/**
 * Rows per statement: a whole log batch (a few thousand records) or a replay run's share in one or two round
 * trips and plans, while the parameters stay a couple of megabytes.
 */
export const ROWS_PER_STATEMENT = 5000;

export interface WriteCounts {
  upserted: number;
  deleted: number;
}

export async function writeRowChanges(tx: SqlExecutor, table: ProjectionTable, changes: readonly RowChange[]): Promise<WriteCounts> {
  const counts: WriteCounts = { upserted: 0, deleted: 0 };
  for (const statement of rowStatements(table, changes)) {
    const { rowCount } = await tx.query(statement.text(1), statement.values, PREPARED);
    countWritten(counts, statement.mode, rowCount);
  }
  return counts;
}

/** One statement's worth of changes of one mode. */
export interface RowStatement extends GuardedWrite {
  readonly mode: ChangeMode;
}

/** The statements that write `changes`: per mode, one per ROWS_PER_STATEMENT rows. */
export function rowStatements(table: ProjectionTable, changes: readonly RowChange[]): RowStatement[] {
  const statements: RowStatement[] = [];
  const modes: ChangeMode[] = ['replace', 'merge', 'delete'];
  for (const mode of modes) {
    const rows = changes.filter((c) => c.mode === mode);
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      statements.push({
        mode,
        values: mode === 'delete' ? deleteValues(table, chunk) : upsertValues(table, chunk),
        text: (first, guard) => statementText(table, mode, first, guard),
      });
    }
  }
  return statements;
}

/** Adds a statement's row count to what it counts: rows deleted for a delete, rows inserted or updated otherwise. */
export function countWritten(counts: WriteCounts, mode: ChangeMode, rows: number): void {
  if (mode === 'delete') counts.deleted += rows;
  else counts.upserted += rows;
}

/**
 * A projector writes every round with the same few statements per table: prepared, so PostgreSQL parses and
 * plans each once per connection instead of per round, and built once per table and mode (the text depends on
 * nothing else; a configuration that changes the table's shape makes a new ProjectionTable, so a new text).
 */
const PREPARED = { prepare: true } as const;
const statementTexts = new WeakMap<ProjectionTable, Map<string, string>>();

/** The text of a statement of `mode`, as GuardedWrite describes it. */
function statementText(table: ProjectionTable, mode: ChangeMode, first: number, guard: string | undefined): string {
  let texts = statementTexts.get(table);
  if (texts === undefined) statementTexts.set(table, (texts = new Map<string, string>()));
  const id = `${mode}\0${first}\0${guard ?? ''}`;
  let text = texts.get(id);
  if (text === undefined) texts.set(id, (text = mode === 'delete' ? deleteSql(table, first, guard) : upsertSql(table, mode, first, guard)));
  return text;
}

/** Input columns of the row set: `_k0`, `_k1`, … for the key, `_c0`, … for the other fields (field names never start with an underscore). */
const keyInput = (i: number): string => quoteIdent(`_k${i}`, 'column');
const valueInput = (i: number): string => quoteIdent(`_c${i}`, 'column');

/**
 * The non-key columns, and of them those that travel as arrays. An object column is taken from the parsed
 * document in SQL (a lookup in it, where a JSON array of its own would be parsed a second time).
 */
const valueColumnsOf = (table: ProjectionTable): FieldColumn[] => table.fieldColumns.filter((c) => !table.keyColumns.includes(c));
const sentColumnsOf = (table: ProjectionTable): FieldColumn[] => valueColumnsOf(table).filter((c) => c.type !== 'object');

function upsertValues(table: ProjectionTable, chunk: readonly RowChange[]): string[] {
  return [
    ...table.keyColumns.map((_, i) => arrayLiteral(chunk.map((c) => c.key[i]))),
    ...sentColumnsOf(table).map((column) => arrayLiteral(chunk.map((c) => columnValue(column, c.doc)))),
    JSON.stringify(chunk.map((c) => c.doc)),
    arrayLiteral(chunk.map((c) => c.version)),
    arrayLiteral(chunk.map((c) => c.eventId)),
    arrayLiteral(chunk.map((c) => c.position)),
    arrayLiteral(chunk.map((c) => c.updatedAt)),
  ];
}

function upsertSql(table: ProjectionTable, mode: 'replace' | 'merge', first: number, guard: string | undefined): string {
  const valueColumns = valueColumnsOf(table);
  const sent = sentColumnsOf(table);
  const keys = table.keyColumns.length;
  const system = keys + sent.length;
  const inputs = [
    ...table.keyColumns.map((k, i) => `unnest($${first + i}::${k.sqlType}[])`),
    ...sent.map((c, i) => `unnest($${first + keys + i}::${c.sqlType}[])`),
    `jsonb_array_elements($${first + system}::jsonb)`,
    `unnest($${first + system + 1}::bigint[])`,
    `unnest($${first + system + 2}::text[])`,
    `unnest($${first + system + 3}::text[])`,
    `unnest($${first + system + 4}::timestamptz[])`,
  ];
  const names = [
    ...table.keyColumns.map((_, i) => keyInput(i)),
    ...sent.map((_, i) => valueInput(i)),
    '"_doc"',
    '"_version"',
    '"_event_id"',
    '"_position"',
    '"_updated_at"',
  ];
  const selectValues = [
    ...table.keyColumns.map((_, i) => `r.${keyInput(i)}`),
    ...valueColumns.map((c) => (c.type === 'object' ? fieldValueSql(c, 'r."_doc"') : `r.${valueInput(sent.indexOf(c))}`)),
    'r."_doc"',
    'r."_version"',
    'r."_event_id"',
    'r."_position"',
    'r."_updated_at"',
  ];
  const insertColumns = [...table.keyColumns, ...valueColumns].map((c) => c.ident);
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
    select ${selectValues.join(', ')} from rows from (${inputs.join(', ')}) as r(${names.join(', ')})${guard === undefined ? '' : ` where ${guard}`}
    on conflict (${table.keyColumns.map((k) => k.ident).join(', ')}) do update set ${assignments.join(', ')}
    where t."_version" < excluded."_version"`;
}

function deleteValues(table: ProjectionTable, chunk: readonly RowChange[]): string[] {
  return [...table.keyColumns.map((_, i) => arrayLiteral(chunk.map((c) => c.key[i]))), arrayLiteral(chunk.map((c) => c.version))];
}

function deleteSql(table: ProjectionTable, first: number, guard: string | undefined): string {
  const keys = table.keyColumns.length;
  const inputs = [...table.keyColumns.map((k, i) => `unnest($${first + i}::${k.sqlType}[])`), `unnest($${first + keys}::bigint[])`];
  const names = [...table.keyColumns.map((_, i) => keyInput(i)), '"_version"'];
  const matches = table.keyColumns.map((k, i) => `t.${k.ident} = r.${keyInput(i)}`).join(' and ');
  return `delete from ${table.qualifiedName} as t using rows from (${inputs.join(', ')}) as r(${names.join(', ')}) where ${matches} and t."_version" < r."_version"${guard === undefined ? '' : ` and ${guard}`}`;
}
