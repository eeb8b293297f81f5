/**
 * Shared parts of the replay suites: the embedded broker and registry, a SQL backend with the service
 * migrations, live table and search projectors under their own group names, and events published straight
 * onto an entity's persistence topic (what the write pipeline would have published).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTableProjector, type TableProjector } from '../../../projections/postgres/table-projector';
import type { BatchReport } from '../../../projections/postgres/table-projection';
import type { ReplayContext } from '../../../projections/replay';
import { startSearchProjector, type SearchProjector } from '../../../projections/search/search-projector';
import { startEmbeddedKafka, type EmbeddedKafka } from '../../../src/embedded/kafka';
import { startEmbeddedRegistry, type EmbeddedRegistry } from '../../../src/embedded/registry';
import { loadSchemas, type EntityEvent, type LogPosition, type WriteLog } from '../../../src/log';
import { openKafkaWriteLog } from '../../../src/log/kafka';
import { createLogger, silentLogger } from '../../../src/logger';

/** TEST_LOG=debug shows what the projectors and the replay log. */
const testLogger = () => (process.env.TEST_LOG ? createLogger(process.env.TEST_LOG) : silentLogger());
import { createPostgresSearchIndex, type PostgresSearchIndex } from '../../../src/search/postgres/postgres-search-index';
import { migrate } from '../../../src/store/migrator';
import type { SqlClient } from '../../../src/store/sql-client';
import { InMemoryEntityConfigSource, type EntityConfig } from '../../../src/tenant';

let seq = 0;
export const uniqueName = (prefix: string): string => `${prefix}_${process.pid}_${++seq}`;

export function accountConfig(entity: string, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    tenant: 'acme',
    entity,
    key: ['accountId'],
    fields: { accountId: { type: 'string', required: true }, name: { type: 'string' }, mcc: { type: 'integer' }, score: { type: 'integer' }, ...fields },
    roles: { admin: { operations: '*' } },
  };
}

export interface EventSpec {
  operation: EntityEvent['operation'];
  key: string;
  version: number;
  payload?: Record<string, unknown>;
  /** The payload's text as published instead (one a projection cannot use: not a JSON object). */
  rawPayload?: string;
}

/** Creates, whole-state updates and deletes over `keys` records: `rounds` versions each, every 7th record deleted last. */
export function historyOf(keys: number, rounds: number, prefix = 'k'): EventSpec[] {
  const specs: EventSpec[] = [];
  for (let v = 1; v <= rounds; v += 1) {
    for (let i = 0; i < keys; i += 1) {
      const key = `${prefix}${i}`;
      specs.push({ operation: v === 1 ? 'create' : 'update', key, version: v, payload: { accountId: key, name: `${key} v${v}`, mcc: 1000 + v, score: i } });
    }
  }
  for (let i = 0; i < keys; i += 7) specs.push({ operation: 'delete', key: `${prefix}${i}`, version: rounds + 1 });
  return specs;
}

/** The rows a projection of `specs` must end with: key → [version, name]. */
export function expectedRows(specs: readonly EventSpec[]): Map<string, { version: number; name: unknown }> {
  const out = new Map<string, { version: number; name: unknown }>();
  for (const s of specs) {
    if (s.operation === 'delete') out.delete(s.key);
    else out.set(s.key, { version: s.version, name: s.payload?.name });
  }
  return out;
}

export interface ReplayHarness {
  readonly log: WriteLog;
  readonly sql: SqlClient;
  readonly entities: InMemoryEntityConfigSource;
  readonly search: PostgresSearchIndex;
  readonly groups: { postgres: string; search: string };
  readonly reports: BatchReport[];
  context(): ReplayContext;
  put(config: Record<string, unknown>): EntityConfig;
  publish(config: EntityConfig, specs: readonly EventSpec[]): Promise<LogPosition[]>;
  /** Starts the live projectors (the search projector unless `search: false`). */
  startLive(options?: { search?: boolean }): Promise<void>;
  stopLive(): Promise<void>;
  /** Resolves once the live table projector applied every position. */
  applied(positions: readonly LogPosition[]): Promise<void>;
  close(): Promise<void>;
}

export async function openReplayHarness(sql: SqlClient, closeSql: () => Promise<void>): Promise<ReplayHarness> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'deltabroker-replay-'));
  const kafka: EmbeddedKafka = await startEmbeddedKafka({ dataDir: path.join(dataDir, 'kafka'), port: 0 });
  const registry: EmbeddedRegistry = await startEmbeddedRegistry({ dataDir: path.join(dataDir, 'registry'), port: 0 });
  const log = await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url, logger: silentLogger(), fetchMaxWaitMs: 100 });
  await migrate(sql, silentLogger());
  const schemas = loadSchemas();
  const entities = new InMemoryEntityConfigSource();
  const search = createPostgresSearchIndex(sql);
  const groups = { postgres: uniqueName('live_pg'), search: uniqueName('live_search') };
  const reports: BatchReport[] = [];
  let live: { tables: TableProjector; index: SearchProjector | undefined } | undefined;

  const harness: ReplayHarness = {
    log,
    sql,
    entities,
    search,
    groups,
    reports,
    context: () => ({ log, schemas, entities, sql, logger: testLogger(), search, liveProjectors: groups }),
    put: (config) => entities.put(config),
    publish: (config, specs) =>
      log.publish(
        specs.map((s) => ({
          topic: config.persistence.topic,
          key: `${config.tenant}/${config.entity}/${s.key}`,
          schema: schemas.EntityEvent,
          value: {
            eventId: randomUUID(),
            deltaId: randomUUID(),
            requestId: null,
            tenant: config.tenant,
            entity: config.entity,
            operation: s.operation,
            key: s.key,
            version: s.version,
            payload: s.operation === 'delete' ? null : (s.rawPayload ?? JSON.stringify(s.payload ?? { accountId: s.key })),
            actor: { user: 'tester', roles: ['admin'] },
            origin: { datacenter: 'dc1' },
            occurredAt: Date.UTC(2026, 0, 1),
            recordedAt: Date.UTC(2026, 0, 1) + s.version * 1000,
          } satisfies EntityEvent,
        })),
      ),
    async startLive(options = {}) {
      const tables = await startTableProjector({
        log,
        schemas,
        entities,
        sql,
        logger: testLogger(),
        groupId: groups.postgres,
        onBatch: (r) => reports.push(r),
      });
      const index =
        options.search === false
          ? undefined
          : await startSearchProjector({
              log,
              schemas,
              entities,
              search,
              sql,
              logger: testLogger(),
              groupId: groups.search,
              // As the service runs it on the Postgres adapter: documents commit with their checkpoints, a round on
              // partitions it applied last in one statement.
              writesIn: (tx) => search.writeIn(tx),
              guardedWrites: search.guardedWrites,
            });
      live = { tables, index };
    },
    async stopLive() {
      await live?.tables.stop();
      await live?.index?.stop();
      live = undefined;
    },
    async applied(positions) {
      if (!live) throw new Error('live projectors not running');
      const tables = live.tables;
      const index = live.index;
      const results = await Promise.all(positions.flatMap((p) => [tables.waitFor(p, 30_000), ...(index ? [index.waitFor(p, 30_000)] : [])]));
      if (results.some((r) => !r)) throw new Error('live projectors did not apply every position in time');
    },
    async close() {
      await harness.stopLive();
      await log.close();
      await closeSql();
      await registry.stop();
      await kafka.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/** The highest position per partition among `positions` (the last record published there). */
export function lastPerPartition(positions: readonly LogPosition[]): LogPosition[] {
  const last = new Map<number, LogPosition>();
  for (const p of positions) if (BigInt(p.offset) >= BigInt(last.get(p.partition)?.offset ?? -1)) last.set(p.partition, p);
  return [...last.values()];
}
