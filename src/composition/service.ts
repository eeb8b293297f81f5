import type { FastifyInstance } from 'fastify';
import { createActorProofVerifier } from '../auth/actor-proof';
import { DELTA_SEAL_PURPOSE, DeltaSeal } from '../auth/delta-seal';
import { createJwtVerifier } from '../auth/jwt-verifier';
import { cacheVerifiedTokens } from '../auth/verified-token-cache';
import { DeltaStatusService } from '../broker/delta-status';
import { OutcomeWaiter } from '../broker/outcome-waiter';
import { QueryService } from '../broker/query-service';
import { LogTopicsService } from '../broker/log-topics';
import { RecordHistoryService } from '../broker/record-history';
import { RejectionService, StoreVerdicts } from '../broker/rejections';
import { SubjectService } from '../broker/subjects/subject-service';
import { TenantOverviewService } from '../broker/tenant-overview';
import { TopicMessagesService } from '../broker/topic-messages';
import { WriteService } from '../broker/write-service';
import type { Config } from '../config';
import { EncryptionService } from '../crypto/encryption-service';
import { openConfiguredHsm } from '../crypto/hsm-bootstrap';
import type { Hsm } from '../crypto/hsm/hsm-port';
import { KeyAliases } from '../crypto/key-aliases';
import type { Keyring } from '../crypto/keyring';
import { SessionStore } from '../crypto/sessions';
import { SubjectKeys } from '../crypto/subject-keys';
import { buildHttpApp } from '../http/app';
import { registerDispatchRoute } from '../http/routes/dispatch';
import { registerHealthRoutes, type ReadinessCheck } from '../http/routes/health';
import { registerKeyRoutes } from '../http/routes/keys';
import { registerMetricsRoute } from '../http/routes/metrics';
import { consoleAssetsDir, registerConsoleRoutes } from '../http/routes/console';
import { registerConsoleDataRoutes } from '../http/routes/console-data';
import { registerRejectionRoutes } from '../http/routes/rejections';
import { registerRecoveryRoute } from '../http/routes/recovery';
import { registerReplayRoutes } from '../http/routes/replay';
import { registerStorageBrokerRoutes } from '../http/routes/storage-broker';
import { registerSubjectRoutes } from '../http/routes/subjects';
import { registerTopicRoutes } from '../http/routes/topics';
import { registerWhoamiRoute } from '../http/routes/whoami';
import { loadSchemas, type DeltaOutcome, type WriteLog } from '../log';
import { openKafkaLogAdmin } from '../log/kafka';
import { registryAcceptsCheck } from '../log/registry-readiness';
import { registryWriterSchemas } from '../log/registry-schemas';
import { TABLE_PROJECTOR_GROUP } from '../log/topology';
import type { Logger } from '../logger';
import {
  countProjected,
  countRejections,
  countVerdict,
  instrumentHttp,
  pipelineBacklog,
  ServiceMetrics,
  serviceLagSource,
  timeEncryption,
} from '../observability';
import { DEFAULT_SEARCH_SCHEMA } from '../search/postgres/postgres-search-index';
import type { SqlClient } from '../store/sql-client';
import { loadOrCreateInstanceId } from '../system/instance-id';
import { publishEndpoints } from '../system/service-endpoints';
import { ClaimingEntityConfigSource, RefusalTrackingSource, type EntityConfigSource } from '../tenant';
import { startActionEmitters } from '../../projections/action-emitter';
import { moveLegacyProjections } from '../../projections/legacy-names';
import { StoppedTopics } from '../../projections/stopped-topics';
import { startTableProjector } from '../../projections/postgres';
import { topicRecovery } from '../../projections/recovery/topic-recovery';
import { projectionReplay } from '../../projections/replay';
import { startSearchProjector } from '../../projections/search/search-projector';
import { startSubjectErasureConsumers } from '../../projections/subjects/erasure-consumers';
import { tableSubjectRecords } from '../../projections/subjects/subject-records';
import { startDeltaProcessor } from '../../streams/delta-processor';
import { PostgresRecordStateStore } from '../store/record-states/postgres-record-states';
import { registerRecordSchemas } from '../../streams/schema-registration';
import { catchUpRecordState, restoreRecordState } from '../../streams/state-restorer';
import { openDevIssuer, openEntityConfigSource, openKeyring, openMasterKey, openSearchIndex, searchEngineConfigured } from './ports';
import { openStore } from './store';
import { closeWithin, ShutdownSteps } from './shutdown-steps';
import { openWriteLog } from './write-log';

/** The running service: its HTTP server, the ports it opened, and how to stop it. */
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

export async function startService(config: Config, logger: Logger): Promise<Service> {
  const shutdown = new ShutdownSteps();
  // Once: a second stop (a signal during a test's own stop, say) waits for the first instead of closing every
  // part again, which a search client's second close never answered.
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= closeWithin(shutdown, logger, config.shutdown.timeoutMs));
  try {
    const store = await openStore(config, logger);
    const { sql, displayUrl: postgresUrl } = store;
    shutdown.add('PostgreSQL pool', () => sql.close());
    const hsm = await openConfiguredHsm(config, logger);
    if (hsm) shutdown.add('HSM session', () => hsm.close());
    const seal = new DeltaSeal(openMasterKey(config).deriveKey(DELTA_SEAL_PURPOSE));
    const keyring = openKeyring(config, sql, hsm, logger);
    shutdown.add('keyring', () => keyring.close());
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

    const { log, brokers, registryUrl, sasl, registryAuth, resources } = await openWriteLog(config, logger, shutdown);
    const schemas = loadSchemas();
    const configured = openEntityConfigSource(config, logger);
    await moveLegacyProjections({ sql, entities: configured, logger, ...(!searchEngineConfigured(config) && { searchSchema: DEFAULT_SEARCH_SCHEMA }) });
    // Every component looks configurations up here, so all refuse one whose names another owns, and every refusal
    // (an invalid configuration, a name another owns) is remembered for /ready and the gauge and logged once.
    const entities = new RefusalTrackingSource(new ClaimingEntityConfigSource(configured, { sql, datacenter: config.datacenter }), logger);
    // The one listing at start: an entity refused here is refused alone (as it is when it breaks while running);
    // only the service's own keys, store and log stop it.
    resources.learn((await entities.list()).configs, config.datacenter);
    const logAdmin = await openKafkaLogAdmin({ brokers, sasl, logger, clientId: `deltabroker-${config.datacenter}-admin` });
    shutdown.add('Kafka admin client', () => logAdmin.close());
    const lag = serviceLagSource({ admin: logAdmin, entities, sql, datacenter: config.datacenter });
    const metrics = new ServiceMetrics({
      lag,
      refusedEntityConfigs: () => entities.refused(),
      onLagFailure: (error) => logger.warn({ err: error }, 'consumer lag not collected'),
    });
    timeEncryption(crypto, metrics);
    const registered = await registerRecordSchemas({ log, schemas, entities, datacenter: config.datacenter });
    logger.info({ topics: registered.length }, 'record schemas registered');
    const stateSql = await store.openStateClient();
    shutdown.add('record state PostgreSQL pool', () => stateSql.close());
    const states = new PostgresRecordStateStore(stateSql);
    const { recorded } = await restoreRecordState({ log, schemas, entities, states, logger });
    // Verdicts this instance decides reach its waiting HTTP callers at once; the outcomes topic serves the rest.
    const waiter = new OutcomeWaiter();
    await waiter.start(log, schemas);
    shutdown.add('outcome waiter', () => waiter.stop());
    const onVerdict = (outcome: DeltaOutcome): void => {
      countVerdict(metrics, outcome);
      waiter.deliver(outcome);
    };
    const actors = createActorProofVerifier({ seal, tokens: verifier });
    const catchUp = async (): Promise<void> => void (await catchUpRecordState({ log, schemas, entities, states, logger }, recorded));
    const processor = await startDeltaProcessor({ log, schemas, entities, states, actors, logger, onVerdict, recorded, catchUp });
    shutdown.add('delta pipeline', () => processor.stop());
    // Projectors and emitters that find their topic recreated stop it; the log line, metric and /ready say so.
    const stopped = new StoppedTopics((partition, error) => {
      logger.error({ err: error, ...partition }, 'a consumer stopped a partition whose topic was deleted and created again');
      metrics.partitionsStopped.inc({ consumer: partition.consumer, topic: partition.topic, partition: String(partition.partition) });
    });
    const delivery =
      config.actions.guarantee === 'exactly-once'
        ? { guarantee: 'exactly-once' as const, instanceId: config.instanceId ?? loadOrCreateInstanceId(config.dataDir) }
        : { guarantee: 'at-least-once' as const };
    const emitters = await startActionEmitters({
      log,
      schemas,
      entities,
      datacenter: config.datacenter,
      logger,
      stopped,
      delivery,
      lingerMs: config.actions.lingerMs,
    });
    shutdown.add('action emitters', async () => void (await Promise.all(emitters.map((e) => e.stop()))));
    const projectionSql = await store.openProjectionClient();
    shutdown.add('projection PostgreSQL pool', () => projectionSql.close());
    const tables = await startTableProjector({
      log,
      schemas,
      entities,
      sql: projectionSql,
      logger,
      stopped,
      lingerMs: config.projections.lingerMs,
      onBatch: (report) => countProjected(metrics, TABLE_PROJECTOR_GROUP, report),
    });
    shutdown.add('table projector', () => tables.stop());
    const { index: search, writesIn, guardedWrites } = await openSearchIndex(config, sql);
    shutdown.add('search client', () => search.close());
    const index = await startSearchProjector({
      ...{ log, schemas, entities, search, sql: projectionSql, logger, stopped, lingerMs: config.projections.lingerMs },
      ...(writesIn && { writesIn }),
      ...(guardedWrites && { guardedWrites }),
    });
    shutdown.add('search projector', () => index.stop());
    const erasures = await startSubjectErasureConsumers({ log, schemas, entities, sql, search, datacenter: config.datacenter, logger });
    shutdown.add('subject erasure consumers', async () => void (await Promise.all(erasures.map((e) => e.stop()))));
    const rejectionCounter = await countRejections(log, schemas, metrics);
    shutdown.add('rejection counter', () => rejectionCounter.stop());
    const queries = new QueryService({ sql, entities, search, tables, index, consistencyTimeoutMs: config.reads.consistencyTimeoutMs });
    const writes = new WriteService({ log, schemas, entities, states, waiter, datacenter: config.datacenter, timeoutMs: config.writes.timeoutMs, seal });
    const rejections = new RejectionService({ log, schemas, verdicts: new StoreVerdicts(states), entities, seal });

    const http = buildHttpApp({ logger, verifier, bodyLimitBytes: config.http.bodyLimitBytes });
    instrumentHttp(http, metrics);
    const checks: ReadinessCheck[] = [{ name: 'postgres', check: async () => void (await sql.query('select 1')) }];
    if (hsm) checks.push({ name: 'hsm', check: () => hsm.ping() });
    checks.push({ name: 'write-log', check: async () => void (await log.topicOffsets('deltas')) });
    checks.push({
      name: 'registry',
      check: registryAcceptsCheck({ registryUrl, subject: 'deltas-value', schema: schemas.DeltaEnvelope, ...(registryAuth && { auth: registryAuth }) }),
    });
    checks.push({ name: 'topics', check: () => stopped.check() });
    // Reported, not required: writes and table reads go on without the search engine (the projector catches up
    // once it answers), so a load balancer should not take the instance out for it.
    checks.push({ name: 'search', optional: true, check: async () => void (await search.exists('readiness_probe')) });
    registerHealthRoutes(http, checks, [
      {
        name: 'entity-configs',
        refused: () => entities.refused().length,
        reason: (n) =>
          `${n} entity configuration${n === 1 ? ' is' : 's are'} refused; ${n === 1 ? 'its entity answers' : 'their entities answer'} ` +
          'DB_ENTITY_CONFIG_INVALID (or DB_CONFLICT for a name another owns) and every other entity serves: ' +
          'the log names each and says why (`deltabroker entities list` shows the invalid ones)',
      },
    ]);
    registerDispatchRoute(http, crypto);
    registerKeyRoutes(http, keyring);
    registerWhoamiRoute(http);
    registerMetricsRoute(http, metrics, { public: config.metrics.public });
    registerStorageBrokerRoutes(http, writes, queries, new DeltaStatusService({ states, backlog: () => pipelineBacklog(logAdmin) }));
    registerRejectionRoutes(http, rejections, { waitMs: config.writes.timeoutMs });
    registerSubjectRoutes(http, new SubjectService({ keys: subjectKeys, entities, log, schemas, records: tableSubjectRecords(sql), logger }));
    const replayContext = { sql, log, schemas, entities, logger, search };
    const replayJobs = registerReplayRoutes(http, projectionReplay(replayContext), logger);
    registerRecoveryRoute(http, topicRecovery({ replay: replayContext, stopped, states }), replayJobs);
    registerConsoleDataRoutes(http, new TenantOverviewService({ entities, log, rejections, lag }), new RecordHistoryService({ log, schemas, entities }));
    const topics = new LogTopicsService({ admin: logAdmin, datacenter: config.datacenter, entities });
    const writerSchemas = registryWriterSchemas({ registryUrl, ...(registryAuth && { auth: registryAuth }) });
    registerTopicRoutes(http, topics, new TopicMessagesService({ topics, log, writerSchemas }));
    registerConsoleRoutes(http, {
      assetsDir: consoleAssetsDir(),
      // The token the start-up line tells developers to mint with `npx deltabroker token`.
      ...(devIssuer && { mintDevToken: () => devIssuer.mint({ sub: 'alice', tenant: 'acme', roles: ['admin'] }) }),
    });
    shutdown.add('HTTP server', () => http.close());
    const address = await http.listen({ host: config.http.host, port: config.http.port });
    const unpublish = publishEndpoints(config.dataDir, { http: address, brokers, registryUrl });
    shutdown.add('published endpoints', async () => unpublish());
    logger.info(
      {
        url: address,
        kafka: brokers.join(','),
        registry: registryUrl,
        postgres: postgresUrl,
        token: 'npx deltabroker token --sub alice --tenant acme --roles admin',
        psql: 'npx deltabroker psql',
      },
      'deltabroker is listening',
    );
    return { http, url: address, sql, postgresUrl, keyring, aliases, hsm, crypto, log, brokers, registryUrl, entities, metrics, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
