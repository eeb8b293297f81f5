/** The table projection contract on the PostgreSQL server (a fresh database for the suite). */
import { describeTableProjectionContract } from './table-projection-contract';
import { scratchPostgres } from '../../support/scratch-sql';

describeTableProjectionContract('PostgreSQL', async () => {
  return scratchPostgres('dbt_projection');
});
