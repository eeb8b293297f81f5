import { openPgSqlClient } from '../../src/store/pg-sql-client';
import type { SqlClient } from '../../src/store/sql-client';
import { createFreshDatabase } from './postgres';

/** A SqlClient on an empty store made for one suite; `close` closes it and removes the store. */
export interface ScratchSql {
  sql: SqlClient;
  close(): Promise<void>;
}

/** A fresh database on the test PostgreSQL server, dropped on close. */
export async function scratchPostgres(prefix: string): Promise<ScratchSql> {
  const database = await createFreshDatabase(prefix);
  const sql = await openPgSqlClient(database.url);
  return {
    sql,
    async close() {
      await sql.close();
      await database.drop();
    },
  };
}
