import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock';
import type { SqlClient, SqlExecutor, SqlResult } from './sql-client';

/** SqlClient on embedded PGlite (Postgres compiled to WASM), persisted in `dataDir`. */
export async function openPgliteSqlClient(dataDir: string): Promise<SqlClient> {
  mkdirSync(dataDir, { recursive: true });
  const unlock = lockDataDir(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir);
  } catch (error) {
    unlock();
    throw error;
  }

  const run = async <R>(
    target: { query: PGlite['query'] },
    text: string,
    values?: readonly unknown[],
  ): Promise<SqlResult<R>> => {
    const result = await target.query<R>(text, values as unknown[] | undefined);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };

  return {
    kind: 'pglite',
    query: (text, values) => run(db, text, values),
    transaction: <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
      db.transaction((tx) => work({ query: (text, values) => run(tx, text, values) })),
    async close() {
      await db.close();
      unlock();
    },
  };
}
