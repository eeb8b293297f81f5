import { Pool, type PoolClient } from 'pg';
import { DeltabrokerError } from '../errors';
import type { QueryOptions, SqlClient, SqlExecutor, SqlResult } from './sql-client';

/** "cached plan must not change result type": a prepared statement whose table changed its columns' types. */
const PLAN_RESULT_TYPE_CHANGED = '0A000';
/** Distinct statement texts prepared per process (and so at most per connection); later ones are parsed per call. */
const MAX_PREPARED_STATEMENTS = 200;

/**
 * Names of the statements that are prepared: one per distinct text, never reused for another text (pg refuses a
 * name it prepared for other text on the same connection), bounded, so no stream of distinct queries grows the
 * server's memory without end.
 */
class PreparedStatementNames {
  readonly #names = new Map<string, string>();
  readonly #retired = new Set<string>();
  #issued = 0;

  nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#issued >= MAX_PREPARED_STATEMENTS || this.#retired.has(text)) return known;
    this.#issued += 1;
    const name = `deltabroker_${this.#issued}`;
    this.#names.set(text, name);
    return name;
  }

  retire(text: string): void {
    this.#names.delete(text);
    this.#retired.add(text);
  }
}

/** Connections of a pool unless told otherwise. */
const DEFAULT_POOL_CONNECTIONS = 10;

export interface PgSqlClientOptions {
  /** Connections of the pool (default DEFAULT_POOL_CONNECTIONS). */
  readonly maxConnections?: number;
  /**
   * Commit without waiting for the WAL flush (`synchronous_commit=off` on every connection): a PostgreSQL crash may
   * lose the last transactions, in commit order, never half of one. Only for writes the log rebuilds after such a
   * loss (the projectors', whose checkpoints roll back with their rows); never for what an acknowledgement promises.
   */
  readonly asynchronousCommit?: boolean;
  /**
   * Generic plans for every statement (`plan_cache_mode=force_generic_plan` on every connection): planned once per
   * connection and prepared statement rather than at each call. Only for a pool whose every statement finds its rows
   * by their primary key, so that the plan is the same whatever the values. PostgreSQL otherwise plans a statement
   * that unnests arrays again at every call (the arrays' sizes make that plan look cheaper than the generic one),
   * and that planning was most of the pipeline's state look-up: 283-310 µs of server CPU a call with one key
   * against 117-120 generic, 417-469 against 240-279 µs wall.
   */
  readonly genericPlans?: boolean;
}

/** The server settings a pool's connections start with. */
function connectionSettings(o: PgSqlClientOptions): string | undefined {
  const settings = [
    ...(o.asynchronousCommit === true ? ['-c synchronous_commit=off'] : []),
    ...(o.genericPlans === true ? ['-c plan_cache_mode=force_generic_plan'] : []),
  ];
  return settings.length === 0 ? undefined : settings.join(' ');
}

/** SqlClient on a PostgreSQL server through a `pg` pool. */
export async function openPgSqlClient(connectionString: string, o: PgSqlClientOptions = {}): Promise<SqlClient> {
  const options = connectionSettings(o);
  const pool = new Pool({ connectionString, max: o.maxConnections ?? DEFAULT_POOL_CONNECTIONS, ...(options !== undefined && { options }) });
  // A dropped idle connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  try {
    await pool.query('select 1');
  } catch (cause) {
    await pool.end().catch(() => undefined);
    throw new DeltabrokerError('DB_DEPENDENCY_UNAVAILABLE', 'PostgreSQL is not reachable', { stage: 'startup' }, { cause });
  }

  const prepared = new PreparedStatementNames();
  const run = async <R>(client: Pool | PoolClient, text: string, values?: readonly unknown[], options?: QueryOptions): Promise<SqlResult<R>> => {
    const name = options?.prepare ? prepared.nameOf(text) : undefined;
    let result;
    try {
      result = await client.query(
        name === undefined ? { text, values: values as unknown[] | undefined } : { name, text, values: values as unknown[] | undefined },
      );
    } catch (error) {
      if (name === undefined || (error as { code?: unknown }).code !== PLAN_RESULT_TYPE_CHANGED) throw error;
      // A table was rebuilt with other column types (a replay) under a statement a connection had prepared: that
      // statement can never run again there, so the text goes back to being parsed on every call.
      prepared.retire(text);
      result = await client.query(text, values as unknown[] | undefined);
    }
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  };

  return {
    query: (text, values, options) => run(pool, text, values, options),
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work({ query: (text, values, options) => run(client, text, values, options) });
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
