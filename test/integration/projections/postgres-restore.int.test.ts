/**
 * A real PostgreSQL restored to an earlier copy of its data directory under running projectors, as a point-in-time
 * recovery leaves it: the table and search projections and their checkpoints go back together, the consumer groups'
 * offsets in the broker do not. The projectors, which commit asynchronously as the service runs them, must notice
 * at their next round and apply again what the restore took, from the log.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { DEFAULT_SEARCH_SCHEMA } from '../../../src/search/postgres/postgres-search-index';
import { tableOf } from '../../../src/search/postgres/schema';
import { clusterDir, startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/store/embedded-postgres/embedded-postgres';
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import { physicalNamesOf, type EntityConfig } from '../../../src/tenant';
import { qualifiedTable } from '../../support/entities';
import { retriedAfterRestart } from '../../support/postgres-server';
import { accountConfig, lastPerPartition, openReplayHarness, uniqueName, type EventSpec, type ReplayHarness } from '../replay/replay-harness';

describe('projectors under a PostgreSQL restored to an earlier copy', () => {
  let dir: string;
  let server: EmbeddedPostgres | undefined;
  let h: ReplayHarness;

  const start = async (port = 0): Promise<EmbeddedPostgres> => {
    server = await startEmbeddedPostgres({ dataDir: dir, port, logger: silentLogger(), database: 'restored' });
    return server;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'postgres-restore-'));
    const first = await start();
    const sql = await openPgSqlClient(first.url, { asynchronousCommit: true });
    h = await openReplayHarness(sql, () => sql.close());
  });
  afterAll(async () => {
    await h?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const creates = (prefix: string, n = 12): EventSpec[] =>
    Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(2, '0')}`).map((key) => ({
      operation: 'create',
      key,
      version: 1,
      payload: { accountId: key, name: `name of ${key}` },
    }));
  const keysOf = (specs: readonly EventSpec[]): string[] => specs.map((s) => s.key);
  const tableKeys = async (config: EntityConfig): Promise<string[]> =>
    (await h.sql.query<{ k: string }>(`select "accountId" as k from ${qualifiedTable(config)} order by 1`)).rows.map((r) => r.k);
  const indexKeys = async (config: EntityConfig): Promise<string[]> =>
    (await h.sql.query<{ k: string }>(`select id as k from ${tableOf(DEFAULT_SEARCH_SCHEMA, physicalNamesOf(config).index)} order by 1`)).rows.map((r) => r.k);
  const cp = (from: string, to: string): void => void execFileSync('cp', ['-a', from, to]);

  test('the rounds the restore took are applied again at the next round, in the table and the index', async () => {
    const config = h.put(accountConfig(uniqueName('acct')));
    await h.startLive();
    const kept = creates('a');
    await h.applied(lastPerPartition(await h.publish(config, kept)));

    // A copy of the data directory, taken with the server stopped (a base backup, as a restore would start from).
    const port = (server as EmbeddedPostgres).port;
    const copy = path.join(dir, 'copy');
    await server?.stop();
    cp(clusterDir(dir), copy);
    await start(port);

    const lost = creates('b');
    await h.applied(lastPerPartition(await h.publish(config, lost)));
    expect(await retriedAfterRestart(() => tableKeys(config))).toEqual([...keysOf(kept), ...keysOf(lost)]);

    // The restore: the server stopped, its data directory replaced by the copy, started again.
    await server?.stop();
    rmSync(clusterDir(dir), { recursive: true, force: true });
    cp(copy, clusterDir(dir));
    await start(port);
    expect(await retriedAfterRestart(() => tableKeys(config))).toEqual(keysOf(kept));

    // Enough records that each partition has one (keys spread by hash): each partition's next round finds it behind.
    const later = creates('c', 40);
    await h.applied(lastPerPartition(await h.publish(config, later)));
    const all = [...keysOf(kept), ...keysOf(lost), ...keysOf(later)];
    expect(await tableKeys(config)).toEqual(all);
    expect(await indexKeys(config)).toEqual(all);
  }, 120_000);
});
