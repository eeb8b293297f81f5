import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadDevIssuer, type DevIssuer } from './auth/dev-issuer';
import { createJwtVerifier } from './auth/jwt-verifier';
import { createActorProofVerifier } from './auth/actor-proof';
import { DELTA_SEAL_PURPOSE, DeltaSeal } from './auth/delta-seal';
import { cacheVerifiedTokens } from './auth/verified-token-cache';
import type { Config } from './config';
import { EncryptionService } from './crypto/encryption-service';
import { openConfiguredHsm } from './crypto/hsm-bootstrap';
import type { Hsm } from './crypto/hsm/hsm-port';
import { KeyAliases } from './crypto/key-aliases';
import { Keyring } from './crypto/keyring';
import { SubjectKeys } from './crypto/subject-keys';
import { MasterKey } from './crypto/master-key';
import { SessionStore } from './crypto/sessions';
import { buildHttpApp } from './http/app';
import { registerDispatchRoute } from './http/routes/dispatch';
import { registerHealthRoutes, type ReadinessCheck } from './http/routes/health';
import { registerKeyRoutes } from './http/routes/keys';
import { registerWhoamiRoute } from './http/routes/whoami';
import { registerStorageBrokerRoutes } from './http/routes/storage-broker';
import { registerReplayRoutes } from './http/routes/replay';
import { registerRejectionRoutes } from './http/routes/rejections';
import { registerSubjectRoutes } from './http/routes/subjects';
import { SubjectService } from './broker/subjects/subject-service';
import { RejectionService, StoreVerdicts } from './broker/rejections';
import { OutcomeWaiter } from './broker/outcome-waiter';
import { WriteService } from './broker/write-service';
import { reservedResourcesAuthorizer, startEmbeddedKafka, type EmbeddedKafka } from './embedded/kafka';
import { openInProcessWriteLog } from './log/in-process';
import { startEmbeddedRegistry } from './embedded/registry';
import { loadSchemas, type DeltaOutcome, type WriteLog } from './log';
import { registryAcceptsCheck } from './log/registry-readiness';
import { type KafkaSasl, openKafkaLogAdmin, openKafkaWriteLog, type RegistryAuth } from './log/kafka';
import type { EngineCredentials } from './embedded/credentials';
import {
  embeddedKafkaCredentials,
  embeddedRegistryCredentials,
  isLoopback,
  runningKafkaCredentials,
  runningRegistryCredentials,
  usersOf,
} from './embedded/engine-credentials';
import { ServiceResources, TABLE_PROJECTOR_GROUP } from './log/topology';
import { countProjected, countRejections, countVerdict, instrumentHttp, pipelineBacklog, ServiceMetrics, serviceLagSource, timeEncryption } from './observability';
import { DeltaStatusService } from './broker/delta-status';
import { registerMetricsRoute } from './http/routes/metrics';
import { ClaimingEntityConfigSource, FileEntityConfigSource, HttpEntityConfigSource, type EntityConfigSource } from './tenant';
import { startDeltaProcessor } from '../streams/delta-processor';
import { PostgresRecordStateStore } from './store/record-states/postgres-record-states';
import { restoreRecordState } from '../streams/state-restorer';
import { registerRecordSchemas } from '../streams/schema-registration';
import { startActionEmitters } from '../projections/action-emitter';
import { StoppedTopics } from '../projections/stopped-topics';
import { startTableProjector } from '../projections/postgres';
import { startSearchProjector } from '../projections/search/search-projector';
import { startSubjectErasureConsumers } from '../projections/subjects/erasure-consumers';
import { moveLegacyProjections } from '../projections/legacy-names';
import { QueryService } from './broker/query-service';
import type { SearchIndex } from './search';
import { createPostgresSearchIndex, DEFAULT_SEARCH_SCHEMA } from './search/postgres/postgres-search-index';
import { openElasticsearchSearchIndex } from './search/elasticsearch/elasticsearch-search-index';
import type { Logger } from './logger';
import { migrate } from './store/migrator';
import { openPgSqlClient } from './store/pg-sql-client';
import { startEmbeddedPostgres } from './store/embedded-postgres/embedded-postgres';
import { connectionCapWithin, openFilesLimit } from './system/open-files-limit';
import { readRunning, publishEndpoints } from './system/service-endpoints';
import type { SqlClient } from './store/sql-client';

/**
 * The composition root: the one place that picks adapters from configuration and wires services together.
 */
export interface Service {
  http: FastifyInstance;
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:8080 */
  url: string;
  sql: SqlClient;
  /** Where operators reach the relational store (password left out). */
  postgresUrl: string;
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

/**
 * Who opens an engine: the service owns the embedded engines of its data directory; an operator command (a tool)
 * uses the running service's engines when there is one, and otherwise starts them for its own run.
 */
export type Opener = 'service' | 'tool';

/** How the service reaches the write log: brokers, registry, and its identity on both. */
export interface WriteLogAccess {
  log: WriteLog;
  brokers: string[];
  registryUrl: string;
  /** The service's SASL identity on the brokers (undefined: anonymous, a configured cluster without SASL). */
  sasl: KafkaSasl | undefined;
  registryAuth: RegistryAuth | undefined;
  /** The topics, subjects and groups that are the service's own; learn() entity configurations into it. */
  resources: ServiceResources;
}

/**
 * The write log: a Kafka cluster and schema registry when configured, else the embedded ones. When the broker is
 * the one this process started, the service reaches it in-process (same partition logs, groups and fsync policy,
 * no Kafka client over loopback); everything else (a cluster, or a running service's broker) goes through kafkajs.
 */
/** `max.connections`, lowered to half the process's open-files limit so a flood never starves HTTP of descriptors. */
function kafkaConnectionCap(config: Config, logger: Logger): number {
  const limit = openFilesLimit();
  const cap = connectionCapWithin(config.kafka.maxConnections, limit);
  if (cap < config.kafka.maxConnections) logger.warn({ configured: config.kafka.maxConnections, cap, openFilesLimit: limit }, 'the broker accepts at most half the open-files limit in connections');
  return cap;
}

export async function openWriteLog(config: Config, logger: Logger, closers: Closers, opener: Opener = 'service'): Promise<WriteLogAccess> {
  const running = opener === 'tool' ? readRunning(config.dataDir) : undefined;
  // A tool beside a running service uses its engines; started ones listen on free ports so they never clash.
  const port = (configured: number): number => (opener === 'tool' ? 0 : configured);
  const resources = new ServiceResources();
  let brokers = config.kafka.brokers ?? running?.brokers;
  let embedded: EmbeddedKafka | undefined;
  let sasl = config.kafka.brokers ? configuredSasl(config) : running && serviceSasl(runningKafkaCredentials(config.dataDir));
  if (!brokers) {
    const credentials = embeddedKafkaCredentials(config.dataDir);
    const kafka = await startEmbeddedKafka({
      dataDir: path.join(config.dataDir, 'kafka'),
      host: config.kafka.host,
      port: port(config.kafka.port),
      defaultPartitions: config.kafka.numPartitions,
      saslUsers: usersOf(credentials),
      saslRequired: config.kafka.saslRequired ?? (config.mode === 'production' || !isLoopback(config.kafka.host)),
      authorizer: reservedResourcesAuthorizer({
        owner: credentials.service.username,
        reservedTopic: (topic) => resources.kindOf(topic) !== undefined,
        openForProduce: (topic) => resources.kindOf(topic) === 'deltas',
        undeletable: (topic) => resources.kindOf(topic) === 'persistence',
        reservedGroup: resources.isServiceGroup,
      }),
      maxConnections: kafkaConnectionCap(config, logger),
      maxConnectionsPerIp: config.kafka.maxConnectionsPerIp,
      connectionsMaxIdleMs: config.kafka.connectionsMaxIdleMs,
      logger,
    });
    closers.push(() => kafka.stop());
    brokers = kafka.brokers;
    embedded = kafka;
    sasl = serviceSasl(credentials);
  }
  let registryUrl = config.registry.url ?? running?.registryUrl;
  let registryAuth = config.registry.url ? configuredRegistryAuth(config) : running && runningRegistryCredentials(config.dataDir)?.service;
  if (!registryUrl) {
    const credentials = embeddedRegistryCredentials(config.dataDir);
    const access = { users: usersOf(credentials), owner: credentials.service.username, ownedSubject: (subject: string) => resources.kindOfSubject(subject) !== undefined };
    const registry = await startEmbeddedRegistry({ dataDir: path.join(config.dataDir, 'registry'), port: port(config.registry.port), logger, access });
    closers.push(() => registry.stop());
    registryUrl = registry.url;
    registryAuth = credentials.service;
  }
  const clientId = `deltabroker-${opener}-${config.datacenter}`;
  const log = embedded
    ? await openInProcessWriteLog({ broker: embedded.parts, registryUrl, registryAuth, logger, clientId })
    : await openKafkaWriteLog({ brokers, registryUrl, sasl, registryAuth, logger, clientId });
  closers.push(() => log.close());
  return { log, brokers, registryUrl, sasl, registryAuth, resources };
}

const serviceSasl = (credentials: EngineCredentials | undefined): KafkaSasl | undefined =>
  credentials && { mechanism: 'scram-sha-256', username: credentials.service.username, password: credentials.service.password };

function configuredSasl(config: Config): KafkaSasl | undefined {
  const { saslUsername: username, saslPassword: password, saslMechanism: mechanism } = config.kafka;
  return username !== undefined && password !== undefined ? { mechanism, username, password } : undefined;
}

function configuredRegistryAuth(config: Config): RegistryAuth | undefined {
  const basic = config.registry.basicAuth;
  if (basic === undefined) return undefined;
  const colon = basic.indexOf(':');
  return { username: basic.slice(0, colon), password: basic.slice(colon + 1) };
}

/** The search index: Elasticsearch when configured, else the Postgres adapter on the relational store. */
export async function openSearchIndex(config: Config, sql: SqlClient): Promise<SearchIndex> {
  return config.search.elasticsearchUrl ? openElasticsearchSearchIndex({ node: config.search.elasticsearchUrl }) : createPostgresSearchIndex(sql);
}

export function openEntityConfigSource(config: Config, logger: Logger): EntityConfigSource {
  return config.entities.tenantApiUrl
    ? new HttpEntityConfigSource({ baseUrl: config.entities.tenantApiUrl, logger })
    : new FileEntityConfigSource({ directory: config.entities.directory, recheckMs: 1000 });
}

/** The relational store and where an operator reaches it (password left out). */
export interface Store {
  sql: SqlClient;
  displayUrl: string;
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
    sql = await openPgSqlClient(url);
    logger.info({ postgres: displayUrl }, 'relational store open');
    await migrate(sql, logger);
  } catch (error) {
    await stopServer?.();
    throw error;
  }
  const close = sql.close;
  sql.close = async () => {
    await close();
    await stopServer?.();
  };
  return { sql, displayUrl };
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
    const { sql, displayUrl: postgresUrl } = await openStore(config, logger);
    closers.push(() => sql.close());
    const hsm = await openConfiguredHsm(config, logger);
    if (hsm) closers.push(() => hsm.close());
    const masterKey = openMasterKey(config);
    const seal = new DeltaSeal(masterKey.deriveKey(DELTA_SEAL_PURPOSE));
    const keyring = new Keyring(sql, masterKey, hsm, { rotateAfterEncryptions: config.crypto.rotateAfterEncryptions, logger });
    closers.push(() => keyring.close());
    const aliases = new KeyAliases(sql, hsm);
    const sessions = new SessionStore(sql, keyring, { ttlSeconds: config.crypto.sessionTtlSeconds, maxUses: config.crypto.sessionMaxUses });
    const subjectKeys = new SubjectKeys(sql, keyring);
    const crypto = new EncryptionService(keyring, sessions, aliases, hsm, config.crypto.maxPayloadBytes, subjectKeys);

    const devIssuer = await openDevIssuer(config);
    if (devIssuer && config.mode === 'production') logger.warn('the development token issuer is enabled in production mode');
    const verifier = cacheVerifiedTokens(
      await createJwtVerifier({
        ...config.auth,
        ...(devIssuer && { devPublicKey: devIssuer.publicKey }),
      }),
    );

    const { log, brokers, registryUrl, sasl, registryAuth, resources } = await openWriteLog(config, logger, closers);
    const schemas = loadSchemas();
    const configured = openEntityConfigSource(config, logger);
    await moveLegacyProjections({ sql, entities: configured, logger, ...(!config.search.elasticsearchUrl && { searchSchema: DEFAULT_SEARCH_SCHEMA }) });
    // Every component looks configurations up here, so all refuse one whose names another owns.
    const entities = new ClaimingEntityConfigSource(configured, { sql, datacenter: config.datacenter, logger });
    resources.learn(await entities.list(), config.datacenter);
    const logAdmin = await openKafkaLogAdmin({ brokers, sasl, logger, clientId: `deltabroker-${config.datacenter}-admin` });
    closers.push(() => logAdmin.close());
    const metrics = new ServiceMetrics({
      lag: serviceLagSource({ admin: logAdmin, entities, sql, datacenter: config.datacenter }),
      onLagFailure: (error) => logger.warn({ err: error }, 'consumer lag not collected'),
    });
    timeEncryption(crypto, metrics);
    const registered = await registerRecordSchemas({ log, schemas, entities, datacenter: config.datacenter });
    logger.info({ topics: registered.length }, 'record schemas registered');
    const states = new PostgresRecordStateStore(sql);
    const { recorded } = await restoreRecordState({ log, schemas, entities, states, logger });
    // Verdicts this instance decides reach its waiting HTTP callers at once; the outcomes topic serves the rest.
    const waiter = new OutcomeWaiter();
    await waiter.start(log, schemas);
    closers.push(() => waiter.stop());
    const onVerdict = (outcome: DeltaOutcome): void => {
      countVerdict(metrics, outcome);
      waiter.deliver(outcome);
    };
    const actors = createActorProofVerifier({ seal, tokens: verifier });
    const processor = await startDeltaProcessor({ log, schemas, entities, states, actors, logger, onVerdict, recorded });
    closers.push(() => processor.stop());
    // Projectors and emitters that find their topic recreated stop it; the log line, metric and /ready say so.
    const stopped = new StoppedTopics((partition, error) => {
      logger.error({ err: error, ...partition }, 'a consumer stopped a partition whose topic was deleted and created again');
      metrics.partitionsStopped.inc({ consumer: partition.consumer, topic: partition.topic, partition: String(partition.partition) });
    });
    const emitters = await startActionEmitters({ log, schemas, entities, datacenter: config.datacenter, logger, stopped });
    closers.push(async () => void (await Promise.all(emitters.map((e) => e.stop()))));
    const tables = await startTableProjector({ log, schemas, entities, sql, logger, stopped, onBatch: (report) => countProjected(metrics, TABLE_PROJECTOR_GROUP, report) });
    closers.push(() => tables.stop());
    const search = await openSearchIndex(config, sql);
    closers.push(() => search.close());
    const index = await startSearchProjector({ log, schemas, entities, search, sql, logger, stopped });
    closers.push(() => index.stop());
    const erasures = await startSubjectErasureConsumers({ log, schemas, entities, sql, search, datacenter: config.datacenter, logger });
    closers.push(async () => void (await Promise.all(erasures.map((e) => e.stop()))));
    const rejectionCounter = await countRejections(log, schemas, metrics);
    closers.push(() => rejectionCounter.stop());
    const queries = new QueryService({ sql, entities, search, tables, index, consistencyTimeoutMs: config.reads.consistencyTimeoutMs });
    const writes = new WriteService({ log, schemas, entities, states, waiter, datacenter: config.datacenter, timeoutMs: config.writes.timeoutMs, seal });
    const rejections = new RejectionService({ log, schemas, verdicts: new StoreVerdicts(states), entities, seal });

    const http = buildHttpApp({ logger, verifier, bodyLimitBytes: config.http.bodyLimitBytes });
    instrumentHttp(http, metrics);
    const checks: ReadinessCheck[] = [{ name: 'postgres', check: async () => void (await sql.query('select 1')) }];
    if (hsm) checks.push({ name: 'hsm', check: () => hsm.ping() });
    checks.push({ name: 'write-log', check: async () => void (await log.topicOffsets('deltas')) });
    checks.push({ name: 'registry', check: registryAcceptsCheck({ registryUrl, subject: 'deltas-value', schema: schemas.DeltaEnvelope, ...(registryAuth && { auth: registryAuth }) }) });
    checks.push({ name: 'topics', check: () => stopped.check() });
    registerHealthRoutes(http, checks);
    registerDispatchRoute(http, crypto);
    registerKeyRoutes(http, keyring);
    registerWhoamiRoute(http);
    registerMetricsRoute(http, metrics, { public: config.metrics.public });
    registerStorageBrokerRoutes(http, writes, queries, new DeltaStatusService({ states, backlog: () => pipelineBacklog(logAdmin) }));
    registerRejectionRoutes(http, rejections, { waitMs: config.writes.timeoutMs });
    registerSubjectRoutes(http, new SubjectService({ keys: subjectKeys, entities, log, schemas, sql, logger }));
    registerReplayRoutes(http, { sql, log, schemas, entities, logger, search });
    closers.push(() => http.close());
    const address = await http.listen({ host: config.http.host, port: config.http.port });
    const unpublish = publishEndpoints(config.dataDir, { http: address, brokers, registryUrl });
    closers.push(async () => unpublish());
    logger.info(
      { url: address, kafka: brokers.join(','), registry: registryUrl, postgres: postgresUrl, token: 'npx deltabroker token --sub alice --tenant acme --roles admin', psql: 'npx deltabroker psql' },
      'deltabroker is listening',
    );
    return { http, url: address, sql, postgresUrl, keyring, aliases, hsm, crypto, log, brokers, registryUrl, entities, metrics, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
