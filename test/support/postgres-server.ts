import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/logger';
import { startEmbeddedPostgres } from '../../src/store/embedded-postgres/embedded-postgres';

/** A throw-away embedded PostgreSQL server for one test or benchmark run. */
export interface ScratchPostgresServer {
  /** Superuser connection string of the `postgres` database: the admin URL fresh databases are made from. */
  adminUrl: string;
  stop(): Promise<void>;
}

/** Starts a server in a temporary directory on a free port; `stop` stops it and removes the directory. */
export async function startScratchPostgres(): Promise<ScratchPostgresServer> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-pg-'));
  const server = await startEmbeddedPostgres({ dataDir: dir, port: 0, logger: silentLogger(), database: 'postgres' });
  return {
    adminUrl: server.url,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `work` until it succeeds, at most ten times 200 ms apart: a pool's first statements after its server restarted
 * may meet connections the old server closed.
 */
export async function retriedAfterRestart<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt === 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
