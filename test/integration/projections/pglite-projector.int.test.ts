/** The table projector end to end (embedded broker + registry) with its tables on embedded PGlite. */
import { describeTableProjectorOnLog } from './table-projector-contract';
import { scratchPglite } from '../../support/scratch-sql';

describeTableProjectorOnLog('PGlite', async () => {
  return scratchPglite('projector-pglite');
});
