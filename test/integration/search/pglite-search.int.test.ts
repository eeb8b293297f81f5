/** The search contract against the Postgres adapter on embedded PGlite (a temporary data directory). */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { openPgliteSqlClient } from '../../../src/store/pglite-sql-client';
import { describeTransactionalWrites } from './postgres-transactions';
import { describeSearchContract } from './search-contract';

describeSearchContract(
  'Postgres adapter on PGlite',
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-search-pglite-'));
    const sql = await openPgliteSqlClient(dir);
    return {
      index: createPostgresSearchIndex(sql),
      async close() {
        await sql.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { subsetOnly: true },
);

describeTransactionalWrites('PGlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-search-pglite-tx-'));
  const sql = await openPgliteSqlClient(dir);
  return {
    sql,
    async close() {
      await sql.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
