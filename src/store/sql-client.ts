/**
 * The relational store port. One adapter, `pg-sql-client.ts`, for every mode: a PostgreSQL server named by
 * DATABASE_URL or the embedded server (`embedded-postgres/`).
 */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<SqlResult<R>>;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
