/** The table projection contract on the PostgreSQL server (a fresh database for the suite). */
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import { createFreshDatabase } from '../../support/postgres';
import { describeTableProjectionContract } from './table-projection-contract';

describeTableProjectionContract('PostgreSQL', async () => {
  const database = await createFreshDatabase('dbt_projection');
  const sql = await openPgSqlClient(database.url);
  return {
    sql,
    async close() {
      await sql.close();
      await database.drop();
    },
  };
});
