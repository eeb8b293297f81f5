/**
 * The Postgres table projector: one consumer group over the persistence topics of every configured entity,
 * each round of batches applied to the entity tables in one transaction with their checkpoints (table-projection.ts), and
 * `waitFor` for readers that want their own writes. Needs the service migrations (projection_checkpoints)
 * to have run. The topics are those configured at start; an entity added later needs a restart, while a
 * field added to a configured entity is picked up on its next batch (column added and filled from `_doc`).
 */
import type { LogPosition, RecordSchemas, WriteLog } from '../../src/log';
import type { Logger } from '../../src/logger';
import type { SqlClient } from '../../src/store/sql-client';
import type { EntityConfigSource } from '../../src/tenant';
import { persistenceTopicsOf, TABLE_PROJECTOR_GROUP } from '../../src/log/topology';
import { consumePersistenceTopics } from '../persistence-consumer';
import type { StoppedTopics } from '../stopped-topics';
import { TableProjection, type BatchReport } from './table-projection';
import { projectionTableOf } from './table-schema';

export interface TableProjectorOptions {
  readonly log: WriteLog;
  readonly schemas: RecordSchemas;
  readonly entities: EntityConfigSource;
  readonly sql: SqlClient;
  readonly logger: Logger;
  /** Consumer group and checkpoint name (default TABLE_PROJECTOR_GROUP). */
  readonly groupId?: string;
  /** Partitions read at the same time (default 3); those readable together are applied in one transaction. */
  readonly concurrency?: number;
  /** Told about every committed batch (metrics, tests). */
  readonly onBatch?: (report: BatchReport) => void;
  /** Where partitions whose position the log lost are reported. */
  readonly stopped?: StoppedTopics;
  /** How long a small round waits for more events (persistence-consumer.ts; the setting `projections.lingerMs`). */
  readonly lingerMs?: number;
}

export interface TableProjector {
  /** The persistence topics this projector reads. */
  readonly topics: readonly string[];
  /**
   * Resolves true once the record at `position` (as a write's answer gives it: topic, partition, offset) is
   * applied to its table, false when `timeoutMs` passed first or the projector stopped.
   */
  waitFor(position: LogPosition, timeoutMs: number): Promise<boolean>;
  /** Lets the batch in hand finish, leaves the group; waiters answer false. */
  stop(): Promise<void>;
}

/**
 * Bytes of a partition read per batch. A batch is folded to one row change per record and written in one
 * transaction, so a projector that is behind writes a record updated several times in that stretch once, and
 * pays its statements and checkpoint once per few thousand records. Caught up, a batch is what arrived.
 */
export const PROJECTOR_READ_BYTES = 4 * 1024 * 1024;

/**
 * Creates or migrates every configured entity's table (throws DB_CONFLICT when one needs a rebuild), then
 * joins the consumer group; resolves once it has its partitions.
 */
export async function startTableProjector(o: TableProjectorOptions): Promise<TableProjector> {
  const projector = o.groupId ?? TABLE_PROJECTOR_GROUP;
  const logger = o.logger.child({ component: 'table-projector', groupId: projector });
  const projection = new TableProjection({ sql: o.sql, entities: o.entities, logger, projector });
  const { configs } = await o.entities.list();
  for (const config of configs) await projection.tableFor(config);
  const topics = persistenceTopicsOf(configs);
  const consumer = await consumePersistenceTopics({
    log: o.log,
    schemas: o.schemas,
    sql: o.sql,
    logger,
    projector,
    topics,
    concurrency: o.concurrency ?? 3,
    maxBytesPerPartition: PROJECTOR_READ_BYTES,
    ...(o.stopped && { stopped: o.stopped }),
    ...(o.lingerMs !== undefined && { lingerMs: o.lingerMs }),
    applyRound: async (batches, knowns) => {
      const reports = await projection.applyRound(batches, knowns);
      for (const report of reports) {
        // At debug, like the pipeline's line per delta: a busy projector writes several of these a millisecond.
        logger.debug(
          { topic: report.topic, partition: report.partition, applied: report.appliedOffsets.length, checkpoint: report.checkpointAfter },
          'batch projected',
        );
        o.onBatch?.(report);
      }
      return reports.map((report) => BigInt(report.checkpointAfter));
    },
  });
  logger.info({ topics, tables: configs.map((c) => projectionTableOf(c).qualifiedName) }, 'table projector running');
  return { topics, waitFor: consumer.waitFor, stop: consumer.stop };
}
