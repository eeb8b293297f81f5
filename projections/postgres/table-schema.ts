/**
 * The projection table of one entity, derived from its configuration, and the migration that keeps an
 * existing table in line with it.
 *
 * Shape (what the RQL reader expects, see src/store/rql/compiler.ts): one column per configured field typed
 * by COLUMN_TYPES, the key fields as primary key, and the system columns `_doc jsonb` (the whole document),
 * `_version bigint`, `_event_id text`, `_position text` (`topic/partition/offset`), `_updated_at timestamptz`
 * (when the pipeline recorded the event, so a replay rebuilds the same rows).
 *
 * Migration: a missing table is created; a configured field without a column gets one, filled from `_doc`.
 * A column whose type no longer matches its field, or a changed key, is refused with a rebuild hint: the
 * stored values cannot be converted safely in place, a replay into a fresh table can. Columns of fields that
 * left the configuration stay (nullable, no longer written); nothing is dropped.
 */
import { DeltabrokerError } from '../../src/errors';
import { COLUMN_TYPES, SYSTEM_COLUMNS } from '../../src/store/rql/compiler';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import { quoteIdent, quoteQualified } from '../../src/store/sql-identifier';
import { physicalNamesOf, type EntityConfig, type FieldType } from '../../src/tenant';

export interface FieldColumn {
  readonly name: string;
  readonly type: FieldType;
  /** The Postgres type, from COLUMN_TYPES. */
  readonly sqlType: string;
  /** The column name, validated and quoted. */
  readonly ident: string;
}

export interface ProjectionTable {
  readonly config: EntityConfig;
  /** The tenant's schema (src/tenant/physical-names.ts). */
  readonly schema: string;
  /** `"schema"."table"`, validated and quoted. */
  readonly qualifiedName: string;
  /** The key fields' columns, in key order (the primary key). */
  readonly keyColumns: readonly FieldColumn[];
  /** Every configured field's column, keys included, in configuration order. */
  readonly fieldColumns: readonly FieldColumn[];
  /** Changes whenever the configuration changes the table's shape (name, key, fields or their types). */
  readonly signature: string;
}

export interface TableMigration {
  readonly created: boolean;
  /** Columns added (and filled from `_doc`) for fields the configuration gained. */
  readonly addedColumns: readonly string[];
}

const SYSTEM_COLUMN_NAMES = Object.keys(SYSTEM_COLUMNS) as (keyof typeof SYSTEM_COLUMNS)[];

/** The table an entity configuration asks for; throws DB_INTERNAL on a name that is not a safe identifier. */
export function projectionTableOf(config: EntityConfig): ProjectionTable {
  const fieldColumns = Object.entries(config.fields).map(([name, spec]) => ({
    name,
    type: spec.type,
    sqlType: COLUMN_TYPES[spec.type],
    ident: quoteIdent(name, 'column'),
  }));
  const keyColumns = config.key.map((k) => {
    const column = fieldColumns.find((c) => c.name === k);
    if (!column)
      throw new DeltabrokerError('DB_INTERNAL', `key field ${k} of ${config.tenant}/${config.entity} is not a configured field`, {
        field: k,
        rule: 'key',
        stage: 'projection',
      });
    return column;
  });
  const { schema, table } = physicalNamesOf(config);
  const qualifiedName = quoteQualified(table, schema);
  const signature = JSON.stringify([qualifiedName, config.key, fieldColumns.map((c) => [c.name, c.type])]);
  return { config, schema, qualifiedName, keyColumns, fieldColumns, signature };
}

/**
 * SQL for the value of `field` in the jsonb expression `doc`, as the column's type, or null when the stored
 * JSON value does not have that type (a value of the wrong type never makes a whole batch fail). The field
 * name is a validated identifier, so it is safe inside the string literal.
 */
export function fieldValueSql(column: FieldColumn, doc: string): string {
  const value = `(${doc} -> '${column.name}')`;
  const text = `(${value} #>> '{}')`;
  const typed = (jsonType: string, extra = ''): string => `jsonb_typeof(${value}) = '${jsonType}'${extra}`;
  switch (column.type) {
    case 'string':
      return `case when ${typed('string')} then ${text} end`;
    case 'integer':
      return `case when ${typed('number', ` and ${text} ~ '^-?[0-9]{1,18}$'`)} then ${text}::bigint end`;
    case 'number':
      return `case when ${typed('number')} then ${text}::double precision end`;
    case 'boolean':
      return `case when ${typed('boolean')} then ${text}::boolean end`;
    case 'timestamp':
      return `case when ${typed('string', ` and ${text} ~ '${TIMESTAMP_PATTERN}'`)} then ${text}::timestamptz end`;
    case 'object':
      return `case when ${typed('object')} then ${value} end`;
  }
}

/** ISO 8601 dates and date-times as the write pipeline accepts them (validate-delta), which Postgres parses. */
export const TIMESTAMP_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]+)?)?(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?$';

/**
 * Creates the table (and the tenant's schema) when missing, else adds the columns of new fields and fills
 * them from `_doc`. Runs in one transaction under advisory locks on the table and schema names, so instances
 * starting together do not race.
 * Throws DB_CONFLICT (rule `column-type` or `primary-key`) when the table cannot follow the configuration
 * without a rebuild.
 */
export async function migrateProjectionTable(sql: SqlClient, table: ProjectionTable): Promise<TableMigration> {
  return sql.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`deltabroker-projection:${table.qualifiedName}`]);
    const existing = await existingColumns(tx, table);
    if (existing === undefined) {
      await createSchema(tx, table.schema);
      await tx.query(createTableSql(table));
      return { created: true, addedColumns: [] };
    }
    await checkPrimaryKey(tx, table);
    const added: string[] = [];
    for (const column of table.fieldColumns) {
      const current = existing.get(column.name);
      if (current === undefined) {
        await tx.query(`alter table ${table.qualifiedName} add column ${column.ident} ${column.sqlType}`);
        await tx.query(`update ${table.qualifiedName} set ${column.ident} = ${fieldValueSql(column, '"_doc"')} where "_doc" ? '${column.name}'`);
        added.push(column.name);
      } else if (current !== formattedType(column.sqlType)) {
        throw refusal(
          table,
          column.name,
          'column-type',
          `column ${column.name} of ${table.qualifiedName} is ${current}, but field ${column.name} is now ${column.type} (${column.sqlType})`,
        );
      }
    }
    for (const name of SYSTEM_COLUMN_NAMES) {
      const current = existing.get(name);
      if (current !== formattedType(SYSTEM_COLUMNS[name])) {
        throw refusal(table, name, 'system-column', `${table.qualifiedName} is not a projection table: system column ${name} is ${current ?? 'missing'}`);
      }
    }
    return { created: false, addedColumns: added };
  });
}

/** Creates a tenant's schema; the lock keeps two tables of one tenant from creating it at once. */
export async function createSchema(tx: SqlExecutor, schema: string): Promise<void> {
  await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`deltabroker-schema:${schema}`]);
  await tx.query(`create schema if not exists ${quoteIdent(schema, 'schema')}`);
}

/** A column type as Postgres's format_type() spells it (the only alias among our types is timestamptz). */
const formattedType = (sqlType: string): string => (sqlType === 'timestamptz' ? 'timestamp with time zone' : sqlType);

function createTableSql(table: ProjectionTable): string {
  const columns = [
    ...table.fieldColumns.map((c) => `${c.ident} ${c.sqlType}${table.keyColumns.includes(c) ? ' not null' : ''}`),
    ...SYSTEM_COLUMN_NAMES.map((name) => `${quoteIdent(name, 'column')} ${SYSTEM_COLUMNS[name]} not null`),
  ];
  const primaryKey = table.keyColumns.map((c) => c.ident).join(', ');
  return `create table ${table.qualifiedName} (${columns.join(', ')}, primary key (${primaryKey}))`;
}

/** Column name → Postgres type, or undefined when the table does not exist. */
async function existingColumns(tx: SqlExecutor, table: ProjectionTable): Promise<Map<string, string> | undefined> {
  const found = await tx.query<{ oid: string | null }>('select to_regclass($1)::text as oid', [table.qualifiedName]);
  if (found.rows[0]?.oid == null) return undefined;
  const columns = await tx.query<{ name: string; type: string }>(
    `select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute
      where attrelid = to_regclass($1) and attnum > 0 and not attisdropped`,
    [table.qualifiedName],
  );
  return new Map(columns.rows.map((r) => [r.name, r.type]));
}

async function checkPrimaryKey(tx: SqlExecutor, table: ProjectionTable): Promise<void> {
  const result = await tx.query<{ name: string }>(
    `select a.attname as name from pg_index i
       join lateral unnest(i.indkey) with ordinality as k(attnum, position) on true
       join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
      where i.indrelid = to_regclass($1) and i.indisprimary
      order by k.position`,
    [table.qualifiedName],
  );
  const actual = result.rows.map((r) => r.name);
  const expected = table.keyColumns.map((c) => c.name);
  if (actual.join(',') !== expected.join(',')) {
    throw refusal(
      table,
      expected.join(','),
      'primary-key',
      `the primary key of ${table.qualifiedName} is (${actual.join(', ')}), but the key is now (${expected.join(', ')})`,
    );
  }
}

function refusal(table: ProjectionTable, field: string, rule: string, message: string): DeltabrokerError {
  const { tenant, entity } = table.config;
  return new DeltabrokerError(
    'DB_CONFLICT',
    `${message}; rebuild the projection of ${tenant}/${entity} by replaying its persistence topic into a fresh table`,
    {
      field,
      rule,
      stage: 'projection',
    },
  );
}
