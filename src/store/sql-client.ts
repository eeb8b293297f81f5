/**
 * The relational store port. One adapter, `pg-sql-client.ts`, for every mode: a PostgreSQL server named by
 * DATABASE_URL or the embedded server (`embedded-postgres/`).
 */
export interface SqlResult<R> {
  rows: R[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * The statement runs again and again with other values (a read's page and count): the server may keep it
   * parsed and planned per connection instead of parsing and planning it on every call. A hint: an adapter may
   * ignore it, and answers are the same either way.
   */
  readonly prepare?: boolean;
}

export interface SqlExecutor {
  query<R = Record<string, unknown>>(text: string, values?: readonly unknown[], options?: QueryOptions): Promise<SqlResult<R>>;
}

export interface SqlClient extends SqlExecutor {
  /** Runs `work` in one transaction; commits when it resolves, rolls back when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * A write that can also run inside a larger statement, as a `with` query of it (a projector's round in one
 * statement, projections/postgres/held-round.ts): an insert, update or delete without a `returning` clause, its
 * parameters numbered from `first`, writing no row unless the boolean SQL `guard` holds (when given); and its
 * values.
 */
export interface GuardedWrite {
  text(first: number, guard?: string): string;
  readonly values: readonly unknown[];
}
