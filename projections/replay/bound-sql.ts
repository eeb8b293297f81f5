/**
 * A SqlClient whose every statement and "transaction" runs inside one open transaction. Code written against
 * SqlClient (the table projection, migrations) can then work inside the swap transaction of a replay, which
 * must hold its locks until the shadow has caught up.
 */
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';

export function boundToTransaction(tx: SqlExecutor): SqlClient {
  return {
    query: (text, values) => tx.query(text, values),
    transaction: (work) => work(tx),
    close: async () => undefined,
  };
}
