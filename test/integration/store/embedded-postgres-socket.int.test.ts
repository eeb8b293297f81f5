import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { silentLogger } from '../../../src/logger';
import { clusterDir, runningServerUrl, startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/store/embedded-postgres/embedded-postgres';

const serverAddress = async (connectionString: string): Promise<string | null> => {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<{ addr: string | null }>('select host(inet_server_addr()) as addr')).rows[0]?.addr ?? null;
  } finally {
    await client.end();
  }
};

describe('the embedded PostgreSQL server', () => {
  let dir: string;
  let server: EmbeddedPostgres;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-pg-socket-'));
    server = await startEmbeddedPostgres({ dataDir: dir, port: 0, logger: silentLogger() });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("the service reaches it through its Unix socket; operators' URLs stay on 127.0.0.1", async () => {
    const url = new URL(server.url);
    expect(url.searchParams.get('host')).toBe(clusterDir(dir));
    expect(await serverAddress(server.url)).toBeNull(); // no server address: a Unix-socket connection
    expect(runningServerUrl(dir)).toBe(server.url);

    const display = new URL(server.displayUrl);
    expect(display.search).toBe('');
    expect(display.password).toBe('');
    display.password = url.password;
    expect(await serverAddress(display.toString())).toBe('127.0.0.1');
  });
});
