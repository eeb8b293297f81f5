import type { Config } from '../config';
import type { Logger } from '../logger';
import { startEmbeddedPostgres } from '../store/embedded-postgres/embedded-postgres';
import { migrate } from '../store/migrator';
import { openPgSqlClient } from '../store/pg-sql-client';
import type { SqlClient } from '../store/sql-client';
import type { Opener } from './write-log';

/** The relational store and where an operator reaches it (password left out). */
export interface Store {
  sql: SqlClient;
  displayUrl: string;
  /**
   * A client of its own for the projectors' writes, committing asynchronously (pg-sql-client.ts): their checkpoints
   * commit with their rows, and they read from those (projections/persistence-consumer.ts), so what a PostgreSQL
   * crash takes of them is applied again from the log. Closed by its caller, before the store.
   */
  openProjectionClient(): Promise<SqlClient>;
  /**
   * A client of its own for the record state store (postgres-record-states.ts), whose every statement finds rows by
   * their key: its connections plan each statement once (`genericPlans`, pg-sql-client.ts), which the main pool's
   * reads must not, since their best plans depend on their values. Closed by its caller, before the store.
   */
  openStateClient(): Promise<SqlClient>;
}

/**
 * The relational store: the PostgreSQL server of DATABASE_URL, else the embedded server of the data directory
 * (started, or reused when it already runs). The service stops the embedded server when it closes the store; a
 * tool stops only a server it started itself, never the running service's.
 */
export async function openStore(config: Config, logger: Logger, opener: Opener = 'service'): Promise<Store> {
  let url = config.databaseUrl;
  let displayUrl = url === undefined ? '' : redactPassword(url);
  let stopServer: (() => Promise<void>) | undefined;
  if (url === undefined) {
    const server = await startEmbeddedPostgres({ dataDir: config.dataDir, port: opener === 'tool' ? 0 : config.postgres.port, logger });
    url = server.url;
    displayUrl = server.displayUrl;
    if (opener === 'service' || !server.reused) stopServer = () => server.stop();
  }
  let sql: SqlClient;
  try {
    sql = await openPgSqlClient(url, { maxConnections: config.postgres.connections });
    logger.info({ postgres: displayUrl }, 'relational store open');
    await migrate(sql, logger);
  } catch (error) {
    await stopServer?.();
    throw error;
  }
  const close = sql.close.bind(sql);
  sql.close = async () => {
    await close();
    await stopServer?.();
  };
  const serverUrl = url;
  // The projectors' rounds run side by side, one per partition read at once: their own pool, so a busy projector
  // never holds the connections the pipeline and the reads wait for.
  const projection = { maxConnections: config.postgres.projectionConnections, asynchronousCommit: true };
  const state = { maxConnections: config.postgres.stateConnections, genericPlans: true };
  return { sql, displayUrl, openProjectionClient: () => openPgSqlClient(serverUrl, projection), openStateClient: () => openPgSqlClient(serverUrl, state) };
}

function redactPassword(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}
