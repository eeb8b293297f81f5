/** The search contract against the Postgres adapter on a real PostgreSQL server (a fresh database). */
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import { createFreshDatabase } from '../../support/postgres';
import { describeTransactionalWrites } from './postgres-transactions';
import { describeSearchContract } from './search-contract';

describeSearchContract(
  'Postgres adapter on PostgreSQL',
  async () => {
    const database = await createFreshDatabase('search');
    const sql = await openPgSqlClient(database.url);
    return {
      index: createPostgresSearchIndex(sql),
      async close() {
        await sql.close();
        await database.drop();
      },
    };
  },
  { subsetOnly: true },
);

describeTransactionalWrites('PostgreSQL', async () => {
  const database = await createFreshDatabase('searchtx');
  const sql = await openPgSqlClient(database.url);
  return {
    sql,
    async close() {
      await sql.close();
      await database.drop();
    },
  };
});
