/** The table projector end to end (embedded broker + registry) with its tables on the PostgreSQL server. */
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import { createFreshDatabase } from '../../support/postgres';
import { describeTableProjectorOnLog } from './table-projector-contract';

describeTableProjectorOnLog('PostgreSQL', async () => {
  const database = await createFreshDatabase('dbt_projector');
  const sql = await openPgSqlClient(database.url);
  return {
    sql,
    async close() {
      await sql.close();
      await database.drop();
    },
  };
});
