/**
 * What PostgreSQL itself must do for the pipeline's verdicts to be committed without waiting for the WAL flush
 * (src/store/record-states/postgres-record-states.ts): a crash (here an immediate shutdown, which skips the
 * shutdown checkpoint and makes the next start run crash recovery) empties the unlogged catch-up marks, a clean
 * stop keeps them, and a flushed checkpoint keeps every verdict recorded before it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { clusterDir, startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/store/embedded-postgres/embedded-postgres';
import { migrate } from '../../../src/store/migrator';
import { openPgSqlClient } from '../../../src/store/pg-sql-client';
import type { SqlClient } from '../../../src/store/sql-client';
import { PostgresRecordStateStore } from '../../../src/store/record-states/postgres-record-states';
import type { StoredVerdict } from '../../../src/store/record-states/port';
import { retriedAfterRestart } from '../../support/postgres-server';

const verdict = (key: string, deltaId: string): StoredVerdict => ({
  status: 'accepted',
  id: { tenant: 'acme', entity: 'merchant_account', key },
  state: { version: 1, deleted: false, doc: { merchantId: key } },
  outcome: { status: 'accepted', deltaId, eventId: `e-${deltaId}`, version: 1, topic: 'acme.merchant_account.events', partition: 0, offset: '0' },
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** An immediate shutdown: SIGQUIT to the postmaster, as `pg_ctl stop -m immediate` sends; waits for it to exit. */
async function crash(dataDir: string): Promise<void> {
  const pid = Number(readFileSync(path.join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
  process.kill(pid, 'SIGQUIT');
  for (let waited = 0; alive(pid); waited += 50) {
    if (waited > 30_000) throw new Error('the postmaster did not exit');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('PostgreSQL restarts and the state store', () => {
  let dir: string;
  let server: EmbeddedPostgres | undefined;
  let sql: SqlClient | undefined;

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'state-store-crash-'));
  });
  afterAll(async () => {
    await sql?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async (port = 0): Promise<EmbeddedPostgres> => {
    server = await startEmbeddedPostgres({ dataDir: dir, port, logger: silentLogger(), database: 'states' });
    return server;
  };

  test('a crash takes the catch-up marks and keeps what a flushed checkpoint covered; a clean stop keeps the marks', async () => {
    const first = await start();
    sql = await openPgSqlClient(first.url);
    await migrate(sql, silentLogger());
    const store = new PostgresRecordStateStore(sql);
    await store.markCaughtUp();
    await store.recordVerdicts([verdict('m-before-checkpoint', 'd-1')]);
    await store.storeCheckpoints([{ topic: 'acme.merchant_account.events', partition: 0, nextOffset: '1' }]);
    expect((await store.readBatch([], [])).markLost).toBe(false);

    await first.stop();
    await start(first.port);
    expect((await retriedAfterRestart(() => store.readBatch([], []))).markLost).toBe(false);

    await crash(dir);
    await start(first.port);
    const read = await retriedAfterRestart(() => store.readBatch([{ tenant: 'acme', entity: 'merchant_account', key: 'm-before-checkpoint' }], []));
    expect(read.markLost).toBe(true);
    expect([...read.states.values()]).toEqual([{ version: 1, deleted: false, doc: { merchantId: 'm-before-checkpoint' } }]);
    expect(await store.checkpoint('acme.merchant_account.events', 0)).toBe('1');
    await store.markCaughtUp();
    expect((await store.readBatch([], [])).markLost).toBe(false);
  }, 120_000);
});
