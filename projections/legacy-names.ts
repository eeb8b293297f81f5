/**
 * The upgrade to tenant namespaces (src/tenant/physical-names.ts): projections made under the old flat names
 * are moved to their new ones, once, at start, before the projectors run. Nothing is copied or rebuilt; a
 * table is moved into its tenant's schema and renamed, a Postgres search index is renamed.
 *
 * The old names were `<tenant>_<entity>` and `<tenant>_<entity>_search`, or the names the configuration gave,
 * and two tenants could share one. So a move needs proof of ownership, else it is left behind and logged (the
 * entity then starts from an empty projection: replay it from the log):
 * - a table moves when every row came from the entity's persistence topic (the `_position` column says so);
 * - a search index (which keeps no provenance) moves when no other configured entity had the same old name.
 */
import type { Logger } from '../src/logger';
import type { SqlClient, SqlExecutor } from '../src/store/sql-client';
import { quoteIdent, quoteQualified } from '../src/store/sql-identifier';
import { physicalNamesOf, type EntityConfig, type EntityConfigSource } from '../src/tenant';
import { createSchema, projectionTableOf } from './postgres/table-schema';

export interface LegacyMoveOptions {
  readonly sql: SqlClient;
  /** Every configured entity, those whose names another owns included: an old name they had is not proof. */
  readonly entities: EntityConfigSource;
  readonly logger: Logger;
  /** The Postgres search adapter's schema; absent when the search index is Elasticsearch. */
  readonly searchSchema?: string;
}

export interface LegacyMoveReport {
  /** `old → new` for each table and search index moved. */
  readonly moved: string[];
  /** Old projections that could not be proven to be one entity's, and why. */
  readonly leftBehind: string[];
}

const legacyTableNames = (c: EntityConfig): string[] => [...new Set([`${c.tenant}_${c.entity}`, c.persistence.table])];
const legacyIndexNames = (c: EntityConfig): string[] => [...new Set([`${c.tenant}_${c.entity}_search`, c.persistence.index])];
const CATALOG = '_indexes';
/** Any constant unique to this module: instances starting together move each projection once. */
const MOVE_LOCK_KEY = 7_316_240_915;

export async function moveLegacyProjections(o: LegacyMoveOptions): Promise<LegacyMoveReport> {
  const { configs } = await o.entities.list();
  const indexClaimants = new Map<string, number>();
  for (const name of configs.flatMap(legacyIndexNames)) indexClaimants.set(name, (indexClaimants.get(name) ?? 0) + 1);
  const report: LegacyMoveReport = { moved: [], leftBehind: [] };
  await o.sql.transaction(async (tx) => {
    await tx.query(`select pg_advisory_xact_lock(${MOVE_LOCK_KEY})`);
    for (const config of configs) {
      await moveTable(tx, config, report);
      if (o.searchSchema !== undefined) await moveIndex(tx, o.searchSchema, config, indexClaimants, report);
    }
  });
  for (const move of report.moved) o.logger.info({ move }, 'projection moved into its tenant namespace');
  for (const reason of report.leftBehind) o.logger.warn({ reason }, 'old projection left behind; replay the entity to rebuild it');
  return report;
}

const regclass = async (tx: SqlExecutor, qualified: string): Promise<boolean> =>
  (await tx.query<{ present: boolean }>('select to_regclass($1) is not null as present', [qualified])).rows[0]?.present === true;

/** A table with a `_position` column: what the old table projector made. */
async function isProjectionTable(tx: SqlExecutor, qualified: string): Promise<boolean> {
  const found = await tx.query(`select 1 from pg_attribute where attrelid = to_regclass($1) and attname = '_position' and not attisdropped`, [qualified]);
  return found.rowCount > 0;
}

async function moveTable(tx: SqlExecutor, config: EntityConfig, report: LegacyMoveReport): Promise<void> {
  const target = projectionTableOf(config);
  if (await regclass(tx, target.qualifiedName)) return;
  const { topic } = physicalNamesOf(config);
  for (const name of legacyTableNames(config)) {
    // Unqualified, as the old projector named them: the connection's search_path finds them.
    const legacy = quoteIdent(name, 'table');
    if (!(await isProjectionTable(tx, legacy)) || (await regclass(tx, quoteQualified(name, target.schema)))) continue;
    const provenance = await tx.query<{ total: string; foreign: string }>(
      `select count(*)::text as total, count(*) filter (where split_part("_position", '/', 1) <> $1)::text as foreign from ${legacy}`,
      [topic],
    );
    const { total = '0', foreign = '0' } = provenance.rows[0] ?? {};
    if (total === '0') continue;
    if (foreign !== '0') {
      report.leftBehind.push(`table ${name}: ${foreign} of its ${total} rows came from other topics than ${topic} of ${config.tenant}/${config.entity}`);
      continue;
    }
    await createSchema(tx, target.schema);
    await tx.query(`alter table ${legacy} set schema ${quoteIdent(target.schema, 'schema')}`);
    if (name !== config.persistence.table)
      await tx.query(`alter table ${quoteQualified(name, target.schema)} rename to ${quoteIdent(config.persistence.table, 'table')}`);
    report.moved.push(`table ${name} → ${target.qualifiedName}`);
    return;
  }
}

async function moveIndex(
  tx: SqlExecutor,
  schema: string,
  config: EntityConfig,
  claimants: ReadonlyMap<string, number>,
  report: LegacyMoveReport,
): Promise<void> {
  const catalog = quoteQualified(CATALOG, schema);
  if (!(await regclass(tx, catalog))) return;
  const target = physicalNamesOf(config).index;
  const known = async (name: string): Promise<boolean> => (await tx.query(`select 1 from ${catalog} where name = $1`, [name])).rowCount > 0;
  if (await known(target)) return;
  for (const name of legacyIndexNames(config)) {
    if (name === target || !(await known(name))) continue;
    if ((claimants.get(name) ?? 0) > 1) {
      report.leftBehind.push(`search index ${name}: more than one configured entity had that name`);
      continue;
    }
    await tx.query(`alter table ${quoteQualified(name, schema)} rename to ${quoteIdent(target, 'table')}`);
    await tx.query(`update ${catalog} set name = $2, definition = jsonb_set(definition, '{name}', to_jsonb($2::text)), updated_at = now() where name = $1`, [
      name,
      target,
    ]);
    report.moved.push(`search index ${name} → ${target}`);
    return;
  }
}
