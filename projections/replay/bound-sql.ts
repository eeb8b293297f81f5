/**
 * A SqlClient whose every statement and "transaction" runs inside one open transaction. Code written against
 * SqlClient (the table projection, migrations) can then work inside the swap transaction of a replay, which
 * must hold its locks until the shadow has caught up. On PGlite this is also the only way: its one connection
 * belongs to the open transaction.
 */
import type { SqlClient, SqlExecutor } from '../../src/store/sql-client';

export function boundToTransaction(tx: SqlExecutor, kind: SqlClient['kind']): SqlClient {
  return {
    kind,
    query: (text, values) => tx.query(text, values),
    transaction: (work) => work(tx),
    close: async () => undefined,
  };
}
