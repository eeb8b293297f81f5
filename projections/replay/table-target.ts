/**
 * The Postgres table of an entity as a replay target: the shadow is a projection table of the same shape
 * under the name `<table>__rebuild` (or `__verify`), filled by the table projection core with its own
 * checkpoints, and swapped in by renaming it in the swap transaction.
 */
import { isDeltabrokerError } from '../../src/errors';
import type { Logger } from '../../src/logger';
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';
import { quoteIdent, quoteQualified } from '../../src/store/sql-identifier';
import type { EntityConfig } from '../../src/tenant';
import { TableProjection } from '../postgres/table-projection';
import { TABLE_PROJECTOR_GROUP } from '../../src/log/topology';
import { fieldValueSql, migrateProjectionTable, projectionTableOf, type ProjectionTable } from '../postgres/table-schema';
import { boundToTransaction } from './bound-sql';
import { checkpointsOf, dropCheckpoints, lockCheckpoints, writeCheckpoints, type Positions } from './checkpoints';
import { onlyEntity, withPersistence, type ReplayTarget, type ShadowState } from './replay-target';
import { shadowName, shadowProjector, type ShadowPurpose } from './shadow-names';
import { TableRunWriter } from './table-run-writer';

export interface TableTargetOptions {
  readonly sql: SqlClient;
  readonly config: EntityConfig;
  readonly logger: Logger;
  readonly purpose: ShadowPurpose;
  /** The live table projector's checkpoints' name (its consumer group); default TABLE_PROJECTOR_GROUP. */
  readonly liveProjector?: string;
}

export interface TableTarget extends ReplayTarget {
  /** The live and shadow tables as the configuration asks for them. */
  readonly liveTable: ProjectionTable;
  readonly shadowTable: ProjectionTable;
}

export function tableTarget(o: TableTargetOptions): TableTarget {
  const live = o.config.persistence.table;
  const shadow = shadowName(live, o.purpose);
  const shadowConfig = withPersistence(o.config, { table: shadow });
  const liveTable = projectionTableOf(o.config);
  const shadowTable = projectionTableOf(shadowConfig);
  const topic = o.config.persistence.topic;
  const shadowProjectorName = shadowProjector('postgres', o.purpose, shadowTable.qualifiedName);
  const liveProjector = o.liveProjector ?? TABLE_PROJECTOR_GROUP;
  const exists = async (sql: SqlExecutor, qualified: string): Promise<boolean> =>
    (await sql.query<{ present: boolean }>('select to_regclass($1) is not null as present', [qualified])).rows[0]?.present === true;
  const projectionOn = (sql: SqlClient): TableProjection =>
    new TableProjection({ sql, entities: onlyEntity(shadowConfig), logger: o.logger, projector: shadowProjectorName });

  const discard = async (): Promise<void> => {
    await o.sql.query(`drop table if exists ${shadowTable.qualifiedName}`);
    await dropCheckpoints(o.sql, shadowProjectorName, topic);
  };

  return {
    kind: 'postgres',
    live: `${liveTable.schema}.${live}`,
    shadow: `${liveTable.schema}.${shadow}`,
    liveProjector,
    shadowProjector: shadowProjectorName,
    liveWritesBeforeCheckpoint: false,
    liveTable,
    shadowTable,
    shadowExists: () => exists(o.sql, shadowTable.qualifiedName),

    async prepare(start: Positions, seedFromLive: boolean): Promise<ShadowState> {
      const checkpoints = await checkpointsOf(o.sql, shadowProjectorName, topic);
      if (checkpoints.size > 0 && (await exists(o.sql, shadowTable.qualifiedName))) {
        try {
          await migrateProjectionTable(o.sql, shadowTable); // a field added since the interruption becomes a column
          return { resumed: true, checkpoints };
        } catch (error) {
          if (!isDeltabrokerError(error) || error.code !== 'DB_CONFLICT') throw error;
          o.logger.info({ shadow, reason: error.message }, 'the shadow of an interrupted replay no longer fits the configuration; starting over');
        }
      }
      await discard();
      // Created, seeded and given its checkpoints in one transaction: a shadow with checkpoints is always whole.
      await o.sql.transaction(async (tx) => {
        await migrateProjectionTable(boundToTransaction(tx), shadowTable);
        if (seedFromLive && (await exists(tx, liveTable.qualifiedName))) await tx.query(copyRowsSql(liveTable, shadowTable));
        await writeCheckpoints(tx, shadowProjectorName, topic, start);
      });
      return { resumed: false, checkpoints: start };
    },

    writer: (sql: SqlClient) => new TableRunWriter({ projection: projectionOn(sql), config: shadowConfig, sql, topic, logger: o.logger }),

    lockLive: (tx, partitions) => lockCheckpoints(tx, liveProjector, topic, partitions),

    async swap(tx: SqlExecutor): Promise<void> {
      await tx.query(`drop table if exists ${liveTable.qualifiedName}`);
      await tx.query(`alter table ${shadowTable.qualifiedName} rename to ${quoteIdent(live, 'table')}`);
      // The primary key index keeps the shadow's name unless renamed; the next shadow wants that name again.
      const { rows } = await tx.query<{ name: string }>(
        `select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = to_regclass($1) and i.indisprimary`,
        [liveTable.qualifiedName],
      );
      const wanted = `${live}_pkey`;
      const current = rows[0]?.name;
      if (current !== undefined && current !== wanted && wanted.length <= 63) {
        await tx.query(`alter index ${quoteQualified(current, liveTable.schema)} rename to ${quoteIdent(wanted, 'index')}`);
      }
      await dropCheckpoints(tx, shadowProjectorName, topic);
    },

    afterSwap: async () => undefined,
    discard,
  };
}

/**
 * Copies live rows into the shadow, deriving every column from `_doc` (the live table may have an older
 * shape: a field whose type changed, or a column the configuration dropped).
 */
function copyRowsSql(live: ProjectionTable, shadow: ProjectionTable): string {
  const columns = shadow.fieldColumns.map((c) => c.ident);
  const values = shadow.fieldColumns.map((c) => fieldValueSql(c, 'l."_doc"'));
  const system = ['"_doc"', '"_version"', '"_event_id"', '"_position"', '"_updated_at"'];
  const keyPresent = shadow.keyColumns.map((c) => `(${fieldValueSql(c, 'l."_doc"')}) is not null`).join(' and ');
  return `insert into ${shadow.qualifiedName} (${[...columns, ...system].join(', ')})
    select ${[...values, ...system.map((s) => `l.${s}`)].join(', ')} from ${live.qualifiedName} as l where ${keyPresent}`;
}
