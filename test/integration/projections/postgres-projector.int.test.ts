/** The table projector end to end (embedded broker + registry) with its tables on the PostgreSQL server. */
import { describeTableProjectorOnLog } from './table-projector-contract';
import { scratchPostgres } from '../../support/scratch-sql';

describeTableProjectorOnLog('PostgreSQL', async () => {
  return scratchPostgres('dbt_projector');
});
