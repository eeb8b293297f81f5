import type { Logger } from '../logger';
import { MIGRATIONS, type Migration } from './migrations';
import type { SqlClient } from './sql-client';

/** Lock id for the migration advisory lock, so two instances starting together do not race. */
const MIGRATION_LOCK_ID = 0x64656c74;

/** Applies every migration not yet recorded, in version order, each in its own transaction. */
export async function migrate(sql: SqlClient, logger: Logger, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await sql.query(
    'create table if not exists schema_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())',
  );
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const done = await sql.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
      const seen = await tx.query('select 1 from schema_migrations where version = $1', [migration.version]);
      if (seen.rowCount > 0) return false;
      for (const statement of migration.statements) await tx.query(statement);
      await tx.query('insert into schema_migrations (version, name) values ($1, $2)', [migration.version, migration.name]);
      return true;
    });
    if (done) {
      applied.push(migration.version);
      logger.info({ migration: migration.name, version: migration.version }, 'migration applied');
    }
  }
  return applied;
}
