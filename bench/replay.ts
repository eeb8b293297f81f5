import { projectionTableOf } from '../projections/postgres/table-schema';
import { rebuildProjections, verifyProjection, type ReplayContext } from '../projections/replay';
import { ReplayProgress } from '../src/replay';
import { silentLogger } from '../src/logger';
import { createPostgresSearchIndex } from '../src/search/postgres/postgres-search-index';
import { InMemoryEntityConfigSource, type EntityConfig } from '../src/tenant';
import type { EntityEvent } from '../src/log';
import { bestCopySeconds, copyRows } from './support/copy';
import { benchEntity, makeBenchEvents } from './support/bench-events';
import { openBenchLogStack } from './support/log-stack';
import { secondsSince, type Figure } from './support/figures';

/**
 * Replay throughput: an entity's persistence topic on the embedded broker (creates, then whole-state
 * updates) rebuilt into a shadow Postgres table and swapped in (`rebuildProjections`, target postgres), then
 * the table and the Postgres search index together, then `verifyProjection`; against a raw COPY of the same
 * row images (one per event, every column) into a plain table, in the same database, in the same run (the best of 3),
 * after an unmeasured rebuild of another entity.
 * Usage: npx tsx bench/replay.ts [events=50000] [keys=10000]
 */
export interface ReplayBenchOptions {
  readonly events: number;
  readonly keys: number;
}

const PUBLISH_CHUNK = 1000;
/** Events of the unmeasured warm-up rebuild (another entity and topic), on a fifth as many records. */
const WARM_UP_EVENTS = 5000;

interface ReplayMeasurement {
  lines: string[];
  figures: Figure[];
}

async function measure(o: ReplayBenchOptions): Promise<ReplayMeasurement> {
  const keys = Math.min(o.keys, o.events);
  const stack = await openBenchLogStack('bench-replay');
  const { database, schemas, log, sql, copyClient } = stack;
  try {
    const entities = new InMemoryEntityConfigSource();
    const config = entities.put(benchEntity(`replay_${process.pid}`));
    const warm = entities.put(benchEntity(`warm_${process.pid}`));
    const publishAll = async (target: EntityConfig, all: readonly EntityEvent[]): Promise<void> => {
      await log.createTopics([{ topic: target.persistence.topic, partitions: 3 }]);
      for (let i = 0; i < all.length; i += PUBLISH_CHUNK) {
        await log.publish(
          all
            .slice(i, i + PUBLISH_CHUNK)
            .map((value) => ({ topic: target.persistence.topic, key: `bench/${target.entity}/${value.key}`, value, schema: schemas.EntityEvent })),
        );
      }
    };
    const { events, images, finalVersions } = makeBenchEvents(config, o.events, keys);
    await publishAll(config, events);
    await publishAll(warm, makeBenchEvents(warm, WARM_UP_EVENTS, WARM_UP_EVENTS / 5).events);
    const ctx: ReplayContext = { log, schemas, entities, sql, logger: silentLogger(), search: createPostgresSearchIndex(sql) };
    const request = { tenant: config.tenant, entity: config.entity };
    // An unmeasured rebuild of another entity first, as the projector benchmark warms up: a service that replays has
    // its pool's connections open and the projections' code compiled (the live projectors run it), which a cold
    // process pays for inside the first measured rebuild (tens of milliseconds of a few hundred).
    await rebuildProjections(ctx, { tenant: warm.tenant, entity: warm.entity, target: 'all' });

    const tableStarted = process.hrtime.bigint();
    const probe = new ReplayProgress();
    if (process.env.BENCH_PHASES) probe.onChange((p) => console.error(`${p.elapsedSeconds}s ${p.phase} ${p.done}/${p.total}`));
    const table = await rebuildProjections(ctx, { ...request, target: 'postgres' }, { progress: probe });
    const tableSeconds = secondsSince(tableStarted);
    const rows = await sql.query<{ key: string; version: string }>(
      `select "accountId" as key, "_version"::text as version from ${projectionTableOf(config).qualifiedName}`,
    );
    const atFinal = rows.rows.filter((r) => finalVersions.get(r.key) === Number(r.version)).length;

    const allStarted = process.hrtime.bigint();
    await rebuildProjections(ctx, { ...request, target: 'all' });
    const allSeconds = secondsSince(allStarted);

    const verifyStarted = process.hrtime.bigint();
    const verdict = await verifyProjection(ctx, request);
    const verifySeconds = secondsSince(verifyStarted);

    const plain = `bench_copy_${process.pid}`;
    await sql.query(
      `create table ${plain} ("accountId" text, name text, mcc bigint, score double precision, active boolean, "openedAt" timestamptz, address jsonb,
        _doc jsonb, _version bigint, _event_id text, _position text, _updated_at timestamptz)`,
    );
    const copySeconds = await bestCopySeconds(copyClient, plain, copyRows(images));

    const copy = { name: 'raw COPY of the same row images, best of 3', value: o.events / copySeconds, unit: 'rows/s' };
    const notes = `${o.events} events on ${keys} records; ${table.passes} pass(es); after an unmeasured rebuild of another entity (${WARM_UP_EVENTS} events)`;
    const figures: Figure[] = [
      {
        name: 'replay rebuild of the Postgres table (shadow + swap)',
        value: o.events / tableSeconds,
        unit: 'events/s',
        baseline: copy,
        target: { on: 'ratio', atLeast: 0.75 },
        notes: `${notes}; rows at final version ${atFinal}/${keys}`,
      },
      { name: 'replay rebuild of table and search index', value: o.events / allSeconds, unit: 'events/s', baseline: copy, notes },
      {
        name: 'verify (replay into a temporary table + compare)',
        value: o.events / verifySeconds,
        unit: 'events/s',
        baseline: copy,
        notes: `equal: ${verdict.equal}`,
      },
    ];
    const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString('en-US')}/s`;
    const lines = [
      `${o.events.toLocaleString('en-US')} events (${keys.toLocaleString('en-US')} records, whole-state updates), 3 partitions, Postgres ${database.url.replace(/\/\/[^@]*@/, '//')}`,
      `replay --target postgres: ${tableSeconds.toFixed(2)} s, ${rate(o.events, tableSeconds)} events; rows at their final version ${atFinal}/${keys}`,
      `replay --target all (table + search index): ${allSeconds.toFixed(2)} s, ${rate(o.events, allSeconds)} events`,
      `verify: ${verifySeconds.toFixed(2)} s, ${rate(o.events, verifySeconds)} events, equal: ${verdict.equal}`,
      `raw COPY of the ${o.events.toLocaleString('en-US')} row images: ${copySeconds.toFixed(2)} s, ${rate(o.events, copySeconds)} rows`,
      `ratio replay (table) / COPY: ${(copySeconds / tableSeconds).toFixed(3)}; replay (all) / COPY: ${(copySeconds / allSeconds).toFixed(3)}; verify / COPY: ${(copySeconds / verifySeconds).toFixed(3)}`,
    ];
    return { lines, figures };
  } finally {
    await stack.close();
  }
}

/** The figures for the one table of bench/run.ts. */
export async function run(o: { quick: boolean }): Promise<Figure[]> {
  return (await measure(o.quick ? { events: 10_000, keys: 5000 } : { events: 50_000, keys: 10_000 })).figures;
}

if (require.main === module) {
  measure({ events: Number(process.argv[2] ?? 50_000), keys: Number(process.argv[3] ?? 10_000) })
    .then((r) => {
      console.log(r.lines.join('\n'));
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
