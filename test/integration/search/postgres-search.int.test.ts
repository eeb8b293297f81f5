/** The search contract against the Postgres adapter on a real PostgreSQL server (a fresh database). */
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { describeTransactionalWrites } from './postgres-transactions';
import { describeSearchContract } from './search-contract';
import { scratchPostgres } from '../../support/scratch-sql';

describeSearchContract(
  'Postgres adapter on PostgreSQL',
  async () => {
    const { sql, close } = await scratchPostgres('search');
    return { index: createPostgresSearchIndex(sql), openInstance: () => Promise.resolve(createPostgresSearchIndex(sql)), close };
  },
  { subsetOnly: true },
);

describeTransactionalWrites('PostgreSQL', async () => {
  return scratchPostgres('searchtx');
});
