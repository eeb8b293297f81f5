import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadDevIssuer, type DevIssuer } from './auth/dev-issuer';
import { createJwtVerifier } from './auth/jwt-verifier';
import type { Config } from './config';
import { EncryptionService } from './crypto/encryption-service';
import { openConfiguredHsm } from './crypto/hsm-bootstrap';
import type { Hsm } from './crypto/hsm/hsm-port';
import { KeyAliases } from './crypto/key-aliases';
import { Keyring } from './crypto/keyring';
import { MasterKey } from './crypto/master-key';
import { SessionStore } from './crypto/sessions';
import { buildHttpApp } from './http/app';
import { registerDispatchRoute } from './http/routes/dispatch';
import { registerHealthRoutes, type ReadinessCheck } from './http/routes/health';
import { registerKeyRoutes } from './http/routes/keys';
import { registerWhoamiRoute } from './http/routes/whoami';
import { registerStorageBrokerRoutes } from './http/routes/storage-broker';
import { registerReplayRoutes } from './http/routes/replay';
import { OutcomeWaiter } from './broker/outcome-waiter';
import { WriteService } from './broker/write-service';
import { startEmbeddedKafka } from './embedded/kafka';
import { startEmbeddedRegistry } from './embedded/registry';
import { loadSchemas, type WriteLog } from './log';
import { openKafkaLogAdmin, openKafkaWriteLog } from './log/kafka';
import { countProjected, countVerdict, instrumentHttp, pipelineBacklog, ServiceMetrics, serviceLagSource, timeEncryption } from './observability';
import { DeltaStatusService } from './broker/delta-status';
import { registerMetricsRoute } from './http/routes/metrics';
import { ClaimingEntityConfigSource, FileEntityConfigSource, HttpEntityConfigSource, type EntityConfigSource } from './tenant';
import { startDeltaProcessor } from '../streams/delta-processor';
import { RecordStateStore } from '../streams/record-state-store';
import { restoreRecordState } from '../streams/state-restorer';
import { startActionEmitters } from '../projections/action-emitter';
import { startTableProjector, TABLE_PROJECTOR_GROUP } from '../projections/postgres';
import { startSearchProjector } from '../projections/search/search-projector';
import { moveLegacyProjections } from '../projections/legacy-names';
import { QueryService } from './broker/query-service';
import { createPostgresSearchIndex, DEFAULT_SEARCH_SCHEMA, type SearchIndex } from './search';
import { openElasticsearchSearchIndex } from './search/elasticsearch/elasticsearch-search-index';
import type { Logger } from './logger';
import { migrate } from './store/migrator';
import { openPgSqlClient } from './store/pg-sql-client';
import { openPgliteSqlClient } from './store/pglite-sql-client';
import type { SqlClient } from './store/sql-client';

/**
 * The composition root: the one place that picks adapters from configuration and wires services together.
 */
export interface Service {
  http: FastifyInstance;
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:8080 */
  url: string;
  sql: SqlClient;
  keyring: Keyring;
  aliases: KeyAliases;
  hsm: Hsm | undefined;
  crypto: EncryptionService;
  log: WriteLog;
  /** Bootstrap brokers of the write log (the embedded broker's when none is configured). */
  brokers: string[];
  registryUrl: string;
  entities: EntityConfigSource;
  metrics: ServiceMetrics;
  stop(): Promise<void>;
}

type Closers = (() => Promise<void>)[];

/** The write log: a Kafka cluster and schema registry when configured, else the embedded ones. */
async function openWriteLog(config: Config, logger: Logger, closers: Closers): Promise<{ log: WriteLog; brokers: string[]; registryUrl: string }> {
  let brokers = config.kafka.brokers;
  if (!brokers) {
    const kafka = await startEmbeddedKafka({ dataDir: path.join(config.dataDir, 'kafka'), port: config.kafka.port, logger });
    closers.push(() => kafka.stop());
    brokers = kafka.brokers;
  }
  let registryUrl = config.registry.url;
  if (!registryUrl) {
    const registry = await startEmbeddedRegistry({ dataDir: path.join(config.dataDir, 'registry'), port: config.registry.port, logger });
    closers.push(() => registry.stop());
    registryUrl = registry.url;
  }
  const log = await openKafkaWriteLog({ brokers, registryUrl, logger, clientId: `deltabroker-${config.datacenter}` });
  closers.push(() => log.close());
  return { log, brokers, registryUrl };
}

/** The search index: Elasticsearch when configured, else the Postgres adapter on the relational store. */
async function openSearchIndex(config: Config, sql: SqlClient): Promise<SearchIndex> {
  return config.search.elasticsearchUrl ? openElasticsearchSearchIndex({ node: config.search.elasticsearchUrl }) : createPostgresSearchIndex(sql);
}

export function openEntityConfigSource(config: Config, logger: Logger): EntityConfigSource {
  return config.entities.tenantApiUrl
    ? new HttpEntityConfigSource({ baseUrl: config.entities.tenantApiUrl, logger })
    : new FileEntityConfigSource({ directory: config.entities.directory, recheckMs: 1000 });
}

export async function openStore(config: Config, logger: Logger): Promise<SqlClient> {
  const sql = config.databaseUrl ? await openPgSqlClient(config.databaseUrl) : await openPgliteSqlClient(path.join(config.dataDir, 'pglite'));
  logger.info({ store: sql.kind }, 'relational store open');
  await migrate(sql, logger);
  return sql;
}

export function openMasterKey(config: Config): MasterKey {
  return config.crypto.masterKey ? MasterKey.fromBase64(config.crypto.masterKey) : MasterKey.loadOrCreate(config.dataDir);
}

export async function openDevIssuer(config: Config): Promise<DevIssuer | undefined> {
  return config.auth.devIssuer ? loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience) : undefined;
}

export async function startService(config: Config, logger: Logger): Promise<Service> {
  const closers: Closers = [];
  const stop = async (): Promise<void> => {
    for (const close of closers.reverse()) await close().catch((error: unknown) => logger.warn({ err: error }, 'shutdown step failed'));
  };
  try {
    const sql = await openStore(config, logger);
    closers.push(() => sql.close());
    const hsm = await openConfiguredHsm(config, logger);
    if (hsm) closers.push(() => hsm.close());
    const keyring = new Keyring(sql, openMasterKey(config), hsm, { rotateAfterEncryptions: config.crypto.rotateAfterEncryptions, logger });
    closers.push(() => keyring.close());
    const aliases = new KeyAliases(sql, hsm);
    const sessions = new SessionStore(sql, keyring, { ttlSeconds: config.crypto.sessionTtlSeconds, maxUses: config.crypto.sessionMaxUses });
    const crypto = new EncryptionService(keyring, sessions, aliases, hsm, config.crypto.maxPayloadBytes);

    const devIssuer = await openDevIssuer(config);
    if (devIssuer && config.mode === 'production') logger.warn('the development token issuer is enabled in production mode');
    const verifier = await createJwtVerifier({
      ...config.auth,
      ...(devIssuer && { devPublicKey: devIssuer.publicKey }),
    });

    const { log, brokers, registryUrl } = await openWriteLog(config, logger, closers);
    const schemas = loadSchemas();
    const configured = openEntityConfigSource(config, logger);
    await moveLegacyProjections({ sql, entities: configured, logger, ...(!config.search.elasticsearchUrl && { searchSchema: DEFAULT_SEARCH_SCHEMA }) });
    // Every component looks configurations up here, so all refuse one whose names another owns.
    const entities = new ClaimingEntityConfigSource(configured, { sql, datacenter: config.datacenter, logger });
    const logAdmin = await openKafkaLogAdmin({ brokers, logger, clientId: `deltabroker-${config.datacenter}-admin` });
    closers.push(() => logAdmin.close());
    const metrics = new ServiceMetrics({
      lag: serviceLagSource({ admin: logAdmin, entities, sql, datacenter: config.datacenter }),
      onLagFailure: (error) => logger.warn({ err: error }, 'consumer lag not collected'),
    });
    timeEncryption(crypto, metrics);
    const states = new RecordStateStore(sql);
    await restoreRecordState({ log, schemas, entities, states, logger });
    const processor = await startDeltaProcessor({ log, schemas, entities, states, logger, onVerdict: (outcome) => countVerdict(metrics, outcome) });
    closers.push(() => processor.stop());
    const emitters = await startActionEmitters({ log, schemas, entities, datacenter: config.datacenter, logger });
    closers.push(async () => void (await Promise.all(emitters.map((e) => e.stop()))));
    const waiter = new OutcomeWaiter();
    await waiter.start(log, schemas);
    closers.push(() => waiter.stop());
    const tables = await startTableProjector({ log, schemas, entities, sql, logger, onBatch: (report) => countProjected(metrics, TABLE_PROJECTOR_GROUP, report) });
    closers.push(() => tables.stop());
    const search = await openSearchIndex(config, sql);
    closers.push(() => search.close());
    const index = await startSearchProjector({ log, schemas, entities, search, sql, logger });
    closers.push(() => index.stop());
    const queries = new QueryService({ sql, entities, search, tables, index, consistencyTimeoutMs: config.reads.consistencyTimeoutMs });
    const writes = new WriteService({ log, schemas, entities, states, waiter, datacenter: config.datacenter, timeoutMs: config.writes.timeoutMs });

    const http = buildHttpApp({ logger, verifier, bodyLimitBytes: config.http.bodyLimitBytes });
    instrumentHttp(http, metrics);
    const checks: ReadinessCheck[] = [{ name: sql.kind, check: async () => void (await sql.query('select 1')) }];
    if (hsm) checks.push({ name: 'hsm', check: () => hsm.ping() });
    checks.push({ name: 'write-log', check: async () => void (await log.topicOffsets('deltas')) });
    registerHealthRoutes(http, checks);
    registerDispatchRoute(http, crypto);
    registerKeyRoutes(http, keyring);
    registerWhoamiRoute(http);
    registerMetricsRoute(http, metrics, { public: config.metrics.public });
    registerStorageBrokerRoutes(http, writes, queries, new DeltaStatusService({ states, backlog: () => pipelineBacklog(logAdmin) }));
    registerReplayRoutes(http, { sql, log, schemas, entities, logger, liveSearchIndex: search, searchEngine: config.search.elasticsearchUrl ? 'elasticsearch' : 'postgres' });
    closers.push(() => http.close());
    const address = await http.listen({ host: config.http.host, port: config.http.port });
    logger.info({ url: address }, 'deltabroker is listening');
    return { http, url: address, sql, keyring, aliases, hsm, crypto, log, brokers, registryUrl, entities, metrics, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
