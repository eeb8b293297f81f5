/** The search contract against the Postgres adapter on embedded PGlite (a temporary data directory). */
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { describeTransactionalWrites } from './postgres-transactions';
import { describeSearchContract } from './search-contract';
import { scratchPglite } from '../../support/scratch-sql';

describeSearchContract(
  'Postgres adapter on PGlite',
  async () => {
    const { sql, close } = await scratchPglite('search-pglite');
    return { index: createPostgresSearchIndex(sql), close };
  },
  { subsetOnly: true },
);

describeTransactionalWrites('PGlite', async () => {
  return scratchPglite('search-pglite-tx');
});
