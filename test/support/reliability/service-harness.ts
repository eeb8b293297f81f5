import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { loadDevIssuer } from '../../../src/auth/dev-issuer';
import { loadSchemas, type WriteLog } from '../../../src/log';
import { runningKafkaCredentials } from '../../../src/embedded/engine-credentials';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import { createFreshDatabase, type FreshDatabase } from '../postgres';
import { freePort } from '../service-process';
import { RestartableService } from './logged-process';

export const schemas = loadSchemas();
export const EVENTS_TOPIC = 'acme.merchant_account.events';
export const ACTION_TOPICS = ['acme.merchant_account.actions.global', 'acme.merchant_account.actions.dc1'];

/**
 * The service as a real process on fixed ports (so clients reconnect to the same addresses after a SIGKILL and
 * restart), with its own data directory and a fresh Postgres database that the suite inspects directly.
 */
export class ServiceUnderTest extends RestartableService {
  readonly pg: Client;

  private constructor(
    env: Record<string, string>,
    readonly dataDir: string,
    private readonly db: FreshDatabase,
  ) {
    super(env);
    this.pg = new Client({ connectionString: db.url });
    // The database is dropped, or its server stopped, under a client a failed suite left open: that must not end jest.
    this.pg.on('error', () => undefined);
  }

  static async create(extraEnv: Record<string, string> = {}): Promise<ServiceUnderTest> {
    const db = await createFreshDatabase('dbrel');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-reliability-'));
    const env = {
      DELTABROKER_DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      // The shipped configuration only: the test fixtures include an entity whose topic the pipeline reserves.
      DELTABROKER_ENTITIES_DIR: path.resolve(__dirname, '../../../config/entities'),
      DELTABROKER_HTTP_PORT: String(await freePort()),
      DELTABROKER_KAFKA_PORT: String(await freePort()),
      DELTABROKER_REGISTRY_PORT: String(await freePort()),
      ...extraEnv,
    };
    const sut = new ServiceUnderTest(env, dataDir, db);
    await sut.pg.connect();
    return sut;
  }

  get brokers(): string[] {
    return [`127.0.0.1:${this.env.DELTABROKER_KAFKA_PORT}`];
  }
  get kafkaPort(): number {
    return Number(this.env.DELTABROKER_KAFKA_PORT);
  }
  get registryUrl(): string {
    return `http://127.0.0.1:${this.env.DELTABROKER_REGISTRY_PORT}`;
  }
  get pid(): number {
    const pid = this.process?.child.pid;
    if (pid === undefined) throw new Error('the service is not running');
    return pid;
  }
  async count(sql: string, params: unknown[] = []): Promise<number> {
    return Number((await this.pg.query<{ n: string }>(sql, params)).rows[0]?.n ?? 0);
  }

  /** A development-issuer token, signed by the key the service keeps in its data directory. */
  async token(roles: string[], options: { tenant?: string; sub?: string; ttlSeconds?: number } = {}): Promise<string> {
    const issuer = await loadDevIssuer(this.dataDir, 'deltabroker-dev', 'deltabroker');
    return issuer.mint({
      sub: options.sub ?? 'reliability',
      tenant: options.tenant ?? 'acme',
      roles,
      ...(options.ttlSeconds && { ttlSeconds: options.ttlSeconds }),
    });
  }

  /** The proof of the generated deltas' actor (user `reliability`), as a Kafka producer sends it (stage 5). */
  async actorProof(): Promise<Record<string, string>> {
    return { authorization: `Bearer ${await this.token(['admin'], { sub: 'reliability', ttlSeconds: 3 * 3600 })}` };
  }

  /** A reader with the service's identity: the replay's temporary groups are `deltabroker-*`, the service's own. */
  async openLog(): Promise<WriteLog> {
    const kafka = runningKafkaCredentials(this.dataDir)?.service;
    const sasl = kafka && { mechanism: 'scram-sha-256' as const, username: kafka.username, password: kafka.password };
    return openKafkaWriteLog({ brokers: this.brokers, registryUrl: this.registryUrl, clientId: 'reliability-reader', ...(sasl && { sasl }) });
  }

  async dispose(): Promise<void> {
    try {
      if (this.alive) await this.process?.stop();
    } finally {
      await this.pg.end().catch(() => undefined);
      await this.db.drop();
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}
