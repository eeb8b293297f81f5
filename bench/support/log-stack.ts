import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedKafka } from '../../src/embedded/kafka';
import { startEmbeddedRegistry } from '../../src/embedded/registry';
import { loadSchemas, type RecordSchemas } from '../../src/log';
import { openInProcessWriteLog } from '../../src/log/in-process';
import type { WriteLog } from '../../src/log';
import { silentLogger } from '../../src/logger';
import { migrate } from '../../src/store/migrator';
import { openPgSqlClient } from '../../src/store/pg-sql-client';
import type { SqlClient } from '../../src/store/sql-client';
import { createBenchDatabase, type BenchDatabase } from './database';

/**
 * What the projection and replay benchmarks run on: the embedded broker and registry in a temp directory, the
 * write log on them (in-process, as the service's projectors and `POST /admin/replay` reach the broker it
 * started), a fresh migrated database, the projectors' own client (asynchronous commit, as the service gives them:
 * src/composition/store.ts), and a plain pg client for the COPY baseline. `close` undoes all.
 */
export interface BenchLogStack {
  database: BenchDatabase;
  schemas: RecordSchemas;
  log: WriteLog;
  sql: SqlClient;
  /** What the service's live projectors write through. */
  projectionSql: SqlClient;
  copyClient: Client;
  close(): Promise<void>;
}

export async function openBenchLogStack(prefix: string): Promise<BenchLogStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const database = await createBenchDatabase(prefix.replace(/-/g, '_'));
  const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0 });
  const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
  // In-process, as the service reaches the broker it started (src/composition/write-log.ts): no Kafka client.
  const log = await openInProcessWriteLog({ broker: kafka.parts, registryUrl: registry.url, logger: silentLogger() });
  const sql = await openPgSqlClient(database.url);
  const projectionSql = await openPgSqlClient(database.url, { asynchronousCommit: true });
  const copyClient = new Client({ connectionString: database.url });
  await copyClient.connect();
  await migrate(sql, silentLogger());
  return {
    database,
    schemas: loadSchemas(),
    log,
    sql,
    projectionSql,
    copyClient,
    async close() {
      await copyClient.end();
      await projectionSql.close();
      await sql.close();
      await log.close();
      await registry.stop();
      await kafka.stop();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
