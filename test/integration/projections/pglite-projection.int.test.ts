/** The table projection contract on embedded PGlite (a temporary data directory). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openPgliteSqlClient } from '../../../src/store/pglite-sql-client';
import { describeTableProjectionContract } from './table-projection-contract';

describeTableProjectionContract('PGlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-projection-pglite-'));
  const sql = await openPgliteSqlClient(dir);
  return {
    sql,
    async close() {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
