import { startTableProjector } from '../projections/postgres/table-projector';
import { TableProjection } from '../projections/postgres/table-projection';
import { projectionTableOf } from '../projections/postgres/table-schema';
import type { EntityEvent, LogRecord, LogPosition } from '../src/log';
import { silentLogger } from '../src/logger';
import { InMemoryEntityConfigSource, type EntityConfig } from '../src/tenant';
import { benchEntity, makeBenchEvents } from './support/bench-events';
import { bestCopySeconds, copyRows } from './support/copy';
import { openBenchLogStack } from './support/log-stack';
import type { Figure } from './support/figures';

/**
 * Postgres table projection throughput: EntityEvents (creates, then whole-state updates) projected
 * (1) by the table projector, from the embedded broker through a consumer group into Postgres, after an
 * unmeasured warm-up projector on another entity (JIT, pool connections, schema fetch), and (2) by the
 * projection core alone, fed in-memory batches of 1,000; against a raw COPY of the same row images (one row
 * per event, every column) into a plain table without keys, in the same database, in the same run (the best of 3).
 * Usage: npx tsx bench/project.ts [events=20000] [keys=10000]. DATABASE_URL, else a fresh database on
 * BENCH_PG_ADMIN_URL, dropped afterwards.
 */
export interface ProjectOptions {
  readonly events: number;
  /** Distinct records: the first `keys` events create them, the rest update them. */
  readonly keys: number;
}

const PUBLISH_CHUNK = 1000;
const CORE_BATCH = 1000;
/** Events of the unmeasured warm-up projection (another entity and topic). */
const WARM_UP_EVENTS = 4000;

const seconds = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;
const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString('en-US')}/s`;

interface ProjectResult {
  lines: string[];
  projectorSeconds: number;
  coreSeconds: number;
  copySeconds: number;
  atFinalVersion: number;
  warmUpSeconds: number;
}

async function measure(o: ProjectOptions): Promise<ProjectResult> {
  const eventCount = o.events;
  const keyCount = Math.min(o.keys, eventCount);
  const lines: string[] = [];
  const stack = await openBenchLogStack('bench-project');
  const { database, schemas, log, sql, projectionSql, copyClient } = stack;
  const suffix = String(process.pid);
  try {
    const entities = new InMemoryEntityConfigSource();
    const viaLog = entities.put(benchEntity(`via_log_${suffix}`));
    const core = new InMemoryEntityConfigSource().put(benchEntity(`core_${suffix}`));
    const { events, images } = makeBenchEvents(viaLog, eventCount, keyCount);
    lines.push(
      `${eventCount.toLocaleString('en-US')} events (${keyCount.toLocaleString('en-US')} creates, then whole-state updates), Postgres ${database.url.replace(/\/\/[^@]*@/, '//')}`,
    );

    // (1) Through the log: publish everything first, then time the projector from start to fully applied. An
    // unmeasured warm-up first projects another entity's topic the same way, so the figure pays no JIT
    // compilation, first pool connections or first schema fetch (the other benchmarks warm up as well).
    const publishAll = async (config: EntityConfig, all: readonly EntityEvent[]): Promise<LogPosition[]> => {
      await log.createTopics([{ topic: config.persistence.topic, partitions: 3 }]);
      const last = new Map<number, LogPosition>();
      for (let i = 0; i < all.length; i += PUBLISH_CHUNK) {
        const published = await log.publish(
          all
            .slice(i, i + PUBLISH_CHUNK)
            .map((value) => ({ topic: config.persistence.topic, key: `bench/${config.entity}/${value.key}`, value, schema: schemas.EntityEvent })),
        );
        for (const p of published) last.set(p.partition, p);
      }
      return [...last.values()];
    };
    const project = async (source: InMemoryEntityConfigSource, groupId: string, ends: readonly LogPosition[]): Promise<number> => {
      const started = process.hrtime.bigint();
      const projector = await startTableProjector({ log, schemas, entities: source, sql: projectionSql, logger: silentLogger(), groupId });
      const joined = seconds(started);
      const reached = await Promise.all(ends.map((p) => projector.waitFor(p, 120_000)));
      await projector.stop();
      if (reached.includes(false)) throw new Error('the projector did not reach the end of the topic in time');
      return joined;
    };
    const warmEntities = new InMemoryEntityConfigSource();
    const warm = warmEntities.put(benchEntity(`warm_${suffix}`));
    const warmEvents = makeBenchEvents(warm, WARM_UP_EVENTS, WARM_UP_EVENTS / 2).events;
    const warmEnds = await publishAll(warm, warmEvents);
    const warmStarted = process.hrtime.bigint();
    await project(warmEntities, `bench-warm-${suffix}`, warmEnds);
    const warmUpSeconds = seconds(warmStarted);
    const publishStarted = process.hrtime.bigint();
    const ends = await publishAll(viaLog, events);
    const publishSeconds = seconds(publishStarted);
    const projectorStarted = process.hrtime.bigint();
    const joinSeconds = await project(entities, `bench-projector-${suffix}`, ends);
    const projectorSeconds = seconds(projectorStarted);

    // (2) The projection core alone, fed the same events in batches of 1,000 of one partition.
    const coreEvents = events.map((e) => ({ ...e, entity: core.entity }));
    const projection = new TableProjection({
      sql,
      entities: new InMemoryEntityConfigSource([benchEntity(core.entity)]),
      logger: silentLogger(),
      projector: `bench-core-${suffix}`,
    });
    await projection.tableFor(core);
    const coreStarted = process.hrtime.bigint();
    for (let i = 0; i < coreEvents.length; i += CORE_BATCH) {
      const records: LogRecord<EntityEvent>[] = coreEvents.slice(i, i + CORE_BATCH).map((value, j) => ({
        topic: core.persistence.topic,
        partition: 0,
        offset: String(i + j),
        key: value.key,
        value,
        headers: {},
        timestamp: value.recordedAt,
        schemaId: 0,
      }));
      await projection.apply({ topic: core.persistence.topic, partition: 0, records, rejected: 0, highWatermark: String(i + records.length) });
    }
    const coreSeconds = seconds(coreStarted);

    // (3) Baseline: COPY the row image of every event into a plain table with the same columns.
    const plain = `bench_copy_${suffix}`;
    await sql.query(
      `create table ${plain} ("accountId" text, name text, mcc bigint, score double precision, active boolean, "openedAt" timestamptz, address jsonb,
        _doc jsonb, _version bigint, _event_id text, _position text, _updated_at timestamptz)`,
    );
    const copySeconds = await bestCopySeconds(copyClient, plain, copyRows(images));

    const finalVersions = new Map(events.map((e) => [e.key, e.version]));
    const rows = await sql.query<{ key: string; version: string }>(
      `select "accountId" as key, "_version"::text as version from ${projectionTableOf(viaLog).qualifiedName}`,
    );
    const atFinalVersion = rows.rows.filter((r) => finalVersions.get(r.key) === Number(r.version)).length;
    const copied = await sql.query<{ n: string }>(`select count(*)::text as n from ${plain}`);
    lines.push(`publish to the embedded broker (not part of the ratio): ${publishSeconds.toFixed(2)} s, ${rate(eventCount, publishSeconds)}`);
    lines.push(
      `warm-up (not part of the ratio): ${WARM_UP_EVENTS} events of another entity through a fresh projector, ${warmUpSeconds.toFixed(2)} s, ${rate(WARM_UP_EVENTS, warmUpSeconds)}`,
    );
    lines.push(
      `table projector via the log: ${projectorSeconds.toFixed(2)} s (group join ${joinSeconds.toFixed(2)} s), ${rate(eventCount, projectorSeconds)} events; rows at their final version: ${atFinalVersion}/${keyCount}`,
    );
    lines.push(`projection core, batches of ${CORE_BATCH}: ${coreSeconds.toFixed(2)} s, ${rate(eventCount, coreSeconds)} events`);
    lines.push(
      `raw COPY of the ${Number(copied.rows[0]?.n).toLocaleString('en-US')} row images, best of 3: ${copySeconds.toFixed(2)} s, ${rate(eventCount, copySeconds)} rows`,
    );
    lines.push(`ratio projector / COPY: ${(copySeconds / projectorSeconds).toFixed(3)}; projection core / COPY: ${(copySeconds / coreSeconds).toFixed(3)}`);
    return { lines, projectorSeconds, coreSeconds, copySeconds, atFinalVersion, warmUpSeconds };
  } finally {
    await stack.close();
  }
}

/** The figures for the one table of bench/run.ts. */
export async function run(o: ProjectOptions): Promise<Figure[]> {
  const r = await measure(o);
  const keys = Math.min(o.keys, o.events);
  const copy = { name: 'raw COPY of the same row images, best of 3', value: o.events / r.copySeconds, unit: 'rows/s' };
  const notes = `${o.events} events on ${keys} records (creates, then whole-state updates)`;
  return [
    {
      name: 'table projector via the embedded broker',
      value: o.events / r.projectorSeconds,
      unit: 'events/s',
      baseline: copy,
      target: { on: 'ratio', atLeast: 0.5 },
      notes: `${notes}; rows at final version ${r.atFinalVersion}/${keys}; after an unmeasured warm-up (${WARM_UP_EVENTS} events of another entity: ${Math.round(WARM_UP_EVENTS / r.warmUpSeconds)}/s, cold)`,
    },
    { name: 'projection core alone (batches of 1,000)', value: o.events / r.coreSeconds, unit: 'events/s', baseline: copy, notes },
  ];
}

if (require.main === module) {
  measure({ events: Number(process.argv[2] ?? 20_000), keys: Number(process.argv[3] ?? 10_000) })
    .then((r) => console.log(r.lines.join('\n')))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
