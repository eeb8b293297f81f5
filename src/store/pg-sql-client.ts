import { Pool, type PoolClient } from 'pg';
import { DeltabrokerError } from '../errors';
import type { SqlClient, SqlExecutor, SqlResult } from './sql-client';

/** SqlClient on a PostgreSQL server through a `pg` pool. */
export async function openPgSqlClient(connectionString: string, maxConnections = 10): Promise<SqlClient> {
  const pool = new Pool({ connectionString, max: maxConnections });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  try {
    await pool.query('select 1');
  } catch (cause) {
    await pool.end().catch(() => undefined);
    throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'PostgreSQL is not reachable', { stage: 'startup' }, { cause });
  }

  const run = async <R>(client: Pool | PoolClient, text: string, values?: readonly unknown[]): Promise<SqlResult<R>> => {
    const result = await client.query(text, values as unknown[] | undefined);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };

  return {
    query: (text, values) => run(pool, text, values),
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work({ query: (text, values) => run(client, text, values) });
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
