import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { loadConfig, type Config } from '../../src/config';
import { startService, type Service } from '../../src/composition';
import { realEngineServiceEnv } from './engines';
import { createFreshDatabase, type FreshDatabase } from './postgres';

export interface TestService {
  service: Service;
  config: Config;
  url: string;
  /** Everything the service logged, one JSON line each: tests assert what never appears there. */
  logLines: string[];
  token(roles: string[], options?: { tenant?: string; sub?: string; ttlSeconds?: number }): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts the whole service on ephemeral ports with a temp data directory: a fresh database on the test run's
 * PostgreSQL server (or, with `store: 'embedded'`, the embedded server the service starts in its data directory)
 * and the SoftHSM2 token the embedded default creates.
 */
export interface TestServiceOptions {
  store?: 'test-server' | 'embedded';
  env?: Record<string, string>;
  /** A database shared with other instances (the caller drops it); by default each service gets its own. */
  database?: FreshDatabase;
  /** The logger's level; debug by default, so tests see every line. */
  logLevel?: string;
}

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-test-'));
  const ownDatabase = options.store !== 'embedded' && !options.database ? await createFreshDatabase() : undefined;
  const database: FreshDatabase | undefined = options.database ?? ownDatabase;
  const config = loadConfig({
    DELTABROKER_DATA_DIR: dataDir,
    DELTABROKER_HTTP_PORT: '0',
    DELTABROKER_KAFKA_PORT: '0',
    DELTABROKER_REGISTRY_PORT: '0',
    DELTABROKER_POSTGRES_PORT: '0',
    ...(database && { DATABASE_URL: database.url }),
    // One SoftHSM2 token for the whole test run (see global-setup.js).
    ...(process.env.TEST_SOFTHSM_DIR && {
      DELTABROKER_SOFTHSM_DIR: process.env.TEST_SOFTHSM_DIR,
      DELTABROKER_HSM_TOKEN_LABEL: process.env.TEST_HSM_TOKEN_LABEL ?? 'deltabroker-test',
      DELTABROKER_HSM_PIN: process.env.TEST_HSM_PIN ?? '',
    }),
    // The e2e-real project (on-real-engines.ts): the run's Kafka 4 cluster and registry instead of embedded ones.
    ...(process.env.TEST_SERVICE_ENGINES === 'real' && realEngineServiceEnv()),
    ...options.env,
  });
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== ''),
      );
      done();
    },
  });
  const logger = pino({ level: options.logLevel ?? 'debug' }, sink);
  const service = await startService(config, logger).catch(async (error: unknown) => {
    await ownDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  const issuer = await loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience);
  return {
    service,
    config,
    url: service.url,
    logLines,
    token: (roles, o = {}) => issuer.mint({ sub: o.sub ?? 'alice', tenant: o.tenant ?? 'acme', roles, ...(o.ttlSeconds && { ttlSeconds: o.ttlSeconds }) }),
    async stop() {
      await service.stop();
      await ownDatabase?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** POSTs JSON (or a raw string body) and parses the answer. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/**
 * Waits until the table and the search index have applied every one of `positions` (writes' answers). A position
 * is one partition's, so writes spread over several partitions need each awaited, not only the last.
 */
export async function awaitProjected(url: string, entity: string, positions: unknown[], token: string): Promise<void> {
  for (const after of positions) {
    for (const operation of ['read', 'search'] as const) {
      const payload = operation === 'read' ? 'limit(1)' : { query: { match_all: {} }, size: 1 };
      const answer = await post(`${url}/`, { dispatch: { entity, operation, after }, payload }, { authorization: `Bearer ${token}` });
      if (answer.status !== 200) throw new Error(`${operation} after ${JSON.stringify(after)} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
  }
}
