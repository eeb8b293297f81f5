/** The table projector end to end (embedded broker + registry) with its tables on embedded PGlite. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPgliteSqlClient } from '../../../src/store/pglite-sql-client';
import { describeTableProjectorOnLog } from './table-projector-contract';

describeTableProjectorOnLog('PGlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-projector-pglite-'));
  const sql = await openPgliteSqlClient(dir);
  return {
    sql,
    async close() {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
