/** The table projection contract on embedded PGlite (a temporary data directory). */
import { describeTableProjectionContract } from './table-projection-contract';
import { scratchPglite } from '../../support/scratch-sql';

describeTableProjectionContract('PGlite', async () => {
  return scratchPglite('projection-pglite');
});
