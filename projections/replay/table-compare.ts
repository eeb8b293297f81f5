/**
 * Compares two projection tables of one entity: row counts, an md5 checksum over every row in key order
 * (key, `_version`, `_event_id`, `_doc` and each configured field's column, as Postgres prints the row), and
 * the first rows that differ. Columns the configuration has but a table lacks are reported, not compared.
 */
import type { SqlExecutor } from '../../src/store/sql-client';
import type { RowDifference, TableComparison, TableDigest } from '../../src/replay';
import type { FieldColumn, ProjectionTable } from '../postgres/table-schema';

async function columnsOf(tx: SqlExecutor, table: ProjectionTable): Promise<Set<string> | undefined> {
  const { rows } = await tx.query<{ name: string | null }>(
    `select a.attname as name from (select to_regclass($1) as oid) t left join pg_attribute a on a.attrelid = t.oid and a.attnum > 0 and not a.attisdropped`,
    [table.qualifiedName],
  );
  if (rows.length === 1 && rows[0]?.name === null) return undefined;
  return new Set(rows.map((r) => r.name as string));
}

const keySql = (table: ProjectionTable, alias: string): string => `row(${table.keyColumns.map((c) => `${alias}.${c.ident}`).join(', ')})::text`;
const rowSql = (columns: readonly FieldColumn[], alias: string): string =>
  `row(${[...columns.map((c) => `${alias}.${c.ident}`), `${alias}."_version"`, `${alias}."_event_id"`, `${alias}."_doc"`].join(', ')})::text`;

async function digest(tx: SqlExecutor, table: ProjectionTable, columns: readonly FieldColumn[]): Promise<TableDigest> {
  const { rows } = await tx.query<{ rows: string | number; checksum: string }>(
    `select count(*) as rows, md5(coalesce(string_agg(r, E'\\n' order by k collate "C"), '')) as checksum
       from (select ${keySql(table, 't')} as k, ${rowSql(columns, 't')} as r from ${table.qualifiedName} t) s`,
  );
  return { rows: Number(rows[0]?.rows ?? 0), checksum: rows[0]?.checksum ?? '' };
}

export async function compareTables(tx: SqlExecutor, live: ProjectionTable, replay: ProjectionTable, maxDifferences: number): Promise<TableComparison> {
  const liveColumns = await columnsOf(tx, live);
  const compared = replay.fieldColumns.filter((c) => liveColumns?.has(c.name) === true);
  const columnsMissingInLive = liveColumns === undefined ? [] : replay.fieldColumns.filter((c) => !liveColumns.has(c.name)).map((c) => c.name);
  const replayDigest = await digest(tx, replay, compared);
  if (liveColumns === undefined) {
    return { live: null, replay: replayDigest, columnsMissingInLive, differingRows: replayDigest.rows, differences: [], equal: replayDigest.rows === 0 };
  }
  const liveDigest = await digest(tx, live, compared);
  const side = (table: ProjectionTable): string =>
    `select ${keySql(table, 't')} as k, t."_version" as v, ${rowSql(compared, 't')} as r from ${table.qualifiedName} t`;
  const { rows } = await tx.query<{ k: string; kind: RowDifference['kind']; lv: string | number | null; rv: string | number | null; total: string | number }>(
    `select coalesce(l.k, r.k) as k, l.v as lv, r.v as rv, count(*) over () as total,
            case when l.k is null then 'missing-in-live' when r.k is null then 'missing-in-replay' else 'differs' end as kind
       from (${side(live)}) l full join (${side(replay)}) r on l.k = r.k
      where l.r is distinct from r.r
      order by coalesce(l.k, r.k) collate "C" limit $1`,
    [maxDifferences],
  );
  const num = (v: string | number | null): number | null => (v === null ? null : Number(v));
  const differingRows = Number(rows[0]?.total ?? 0);
  return {
    live: liveDigest,
    replay: replayDigest,
    columnsMissingInLive,
    differingRows,
    differences: rows.map((r) => ({ key: r.k, kind: r.kind, liveVersion: num(r.lv), replayVersion: num(r.rv) })),
    equal: differingRows === 0 && columnsMissingInLive.length === 0 && liveDigest.checksum === replayDigest.checksum && liveDigest.rows === replayDigest.rows,
  };
}
