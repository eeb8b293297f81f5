/**
 * The operator commands' compositions: the same openers as the service, opened as a tool (the running service's
 * engines when there is one, else engines started for this run), each closed after the command's work.
 */
import { DELTA_SEAL_PURPOSE, DeltaSeal } from '../auth/delta-seal';
import { OutcomeTopicVerdicts, RejectionService, StoreVerdicts } from '../broker/rejections';
import { SubjectService } from '../broker/subjects/subject-service';
import type { Config } from '../config';
import { openConfiguredHsm } from '../crypto/hsm-bootstrap';
import { KeyAliases } from '../crypto/key-aliases';
import type { Keyring } from '../crypto/keyring';
import { SubjectKeys } from '../crypto/subject-keys';
import { loadSchemas } from '../log';
import { openKafkaWriteLog, type KafkaSasl } from '../log/kafka';
import type { Logger } from '../logger';
import type { ProjectionReplay } from '../replay';
import { openPgSqlClient } from '../store/pg-sql-client';
import { projectionReplay } from '../../projections/replay';
import { tableSubjectRecords } from '../../projections/subjects/subject-records';
import { PostgresRecordStateStore } from '../store/record-states/postgres-record-states';
import { openEntityConfigSource, openKeyring, openMasterKey, openSearchIndex } from './ports';
import { openStore } from './store';
import { ShutdownSteps } from './shutdown-steps';
import { openWriteLog } from './write-log';

async function withParts<T>(logger: Logger, work: (shutdown: ShutdownSteps) => Promise<T>): Promise<T> {
  const shutdown = new ShutdownSteps();
  try {
    return await work(shutdown);
  } finally {
    await shutdown.closeAll(logger);
  }
}

/** The keyring and key aliases on the store and the configured HSM. */
export const withKeyring = <T>(config: Config, logger: Logger, work: (keyring: Keyring, aliases: KeyAliases) => Promise<T>): Promise<T> =>
  withParts(logger, async (shutdown) => {
    const { sql } = await openStore(config, logger, 'tool');
    shutdown.add('PostgreSQL pool', () => sql.close());
    const hsm = await openConfiguredHsm(config, logger);
    if (hsm) shutdown.add('HSM session', () => hsm.close());
    const keyring = openKeyring(config, sql, hsm, logger);
    shutdown.add('keyring', () => keyring.close());
    return work(keyring, new KeyAliases(sql, hsm));
  });

/** The subject service on the store and the write log. */
export const withSubjectService = <T>(config: Config, logger: Logger, work: (subjects: SubjectService) => Promise<T>): Promise<T> =>
  withParts(logger, async (shutdown) => {
    const { sql } = await openStore(config, logger, 'tool');
    shutdown.add('PostgreSQL pool', () => sql.close());
    const keyring = openKeyring(config, sql, undefined, logger);
    shutdown.add('keyring', () => keyring.close());
    const { log } = await openWriteLog(config, logger, shutdown, 'tool');
    const entities = openEntityConfigSource(config, logger);
    return work(new SubjectService({ keys: new SubjectKeys(sql, keyring), entities, log, schemas: loadSchemas(), records: tableSubjectRecords(sql), logger }));
  });

/** Replay and verify of projections on the store and the write log. */
export const withProjectionReplay = <T>(config: Config, logger: Logger, work: (replay: ProjectionReplay) => Promise<T>): Promise<T> =>
  withParts(logger, async (shutdown) => {
    const { sql } = await openStore(config, logger, 'tool');
    shutdown.add('PostgreSQL pool', () => sql.close());
    const { log } = await openWriteLog(config, logger, shutdown, 'tool');
    const entities = openEntityConfigSource(config, logger);
    const { index: search } = await openSearchIndex(config, sql);
    shutdown.add('search client', () => search.close());
    return work(projectionReplay({ log, schemas: loadSchemas(), entities, sql, logger, search }));
  });

/** Where the rejection commands find a running service's log and, when reachable, its database. */
export interface RunningServiceAccess {
  brokers: string[];
  sasl: KafkaSasl | undefined;
  registryUrl: string;
  /** The service's database; without it, verdicts are read from the outcomes topic. */
  databaseUrl: string | undefined;
}

/** The rejection service on a running service's log (never engines started for the command: rejections are theirs). */
export const withRejectionService = <T>(
  config: Config,
  access: RunningServiceAccess,
  logger: Logger,
  work: (rejections: RejectionService) => Promise<T>,
): Promise<T> =>
  withParts(logger, async (shutdown) => {
    const log = await openKafkaWriteLog({ brokers: access.brokers, sasl: access.sasl, registryUrl: access.registryUrl, logger, clientId: 'deltabroker-cli' });
    shutdown.add('write log', () => log.close());
    const schemas = loadSchemas();
    let verdicts;
    if (access.databaseUrl) {
      // Read-only use of the pipeline's outcomes: the service migrated the database.
      const sql = await openPgSqlClient(access.databaseUrl, { maxConnections: 2 });
      shutdown.add('PostgreSQL pool', () => sql.close());
      verdicts = new StoreVerdicts(new PostgresRecordStateStore(sql));
    } else {
      verdicts = new OutcomeTopicVerdicts(log, schemas);
    }
    const seal = new DeltaSeal(openMasterKey(config).deriveKey(DELTA_SEAL_PURPOSE));
    return work(new RejectionService({ log, schemas, verdicts, entities: openEntityConfigSource(config, logger), seal }));
  });
