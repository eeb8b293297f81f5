import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startTableProjector } from '../projections/postgres/table-projector';
import { TableProjection } from '../projections/postgres/table-projection';
import { startEmbeddedKafka } from '../src/embedded/kafka';
import { startEmbeddedRegistry } from '../src/embedded/registry';
import { loadSchemas, type EntityEvent, type LogRecord, type PublishedRecord } from '../src/log';
import { openKafkaWriteLog } from '../src/log/kafka';
import { silentLogger } from '../src/logger';
import { migrate } from '../src/store/migrator';
import { openPgSqlClient } from '../src/store/pg-sql-client';
import { InMemoryEntityConfigSource, type EntityConfig } from '../src/tenant';
import { copyIn, copyText } from './support/copy';
import type { Figure } from './support/figures';

/**
 * Postgres table projection throughput: EntityEvents (creates, then partial updates that merge) projected
 * (1) by the table projector, from the embedded broker through a consumer group into Postgres, and (2) by the
 * projection core alone, fed in-memory batches of 1,000; against a raw COPY of the same row images (one row
 * per event, every column) into a plain table without keys, in the same database, in the same run.
 * Usage: npx tsx bench/project.ts [events=20000] [keys=10000]. DATABASE_URL, else a fresh database on the
 * local test server (postgres://postgres@127.0.0.1:5432), dropped afterwards.
 */
export interface ProjectOptions {
  readonly events: number;
  /** Distinct records: the first `keys` events create them, the rest update them. */
  readonly keys: number;
}

const PUBLISH_CHUNK = 1000;
const CORE_BATCH = 1000;

const seconds = (since: bigint): number => Number(process.hrtime.bigint() - since) / 1e9;
const rate = (n: number, s: number): string => `${Math.round(n / s).toLocaleString('en-US')}/s`;

function benchEntity(entity: string): Record<string, unknown> {
  return {
    tenant: 'bench',
    entity,
    key: ['accountId'],
    fields: {
      accountId: { type: 'string', required: true },
      name: { type: 'string' },
      mcc: { type: 'integer' },
      score: { type: 'number' },
      active: { type: 'boolean' },
      openedAt: { type: 'timestamp' },
      address: { type: 'object' },
    },
    roles: {},
  };
}

/** The events, and the row image after each one (what a projector that wrote every event would write). */
function makeEvents(config: EntityConfig, eventCount: number, keyCount: number): { events: EntityEvent[]; images: unknown[][] } {
  const events: EntityEvent[] = [];
  const images: unknown[][] = [];
  const docs = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < eventCount; i += 1) {
    const key = `acct-${i % keyCount}`;
    const version = Math.floor(i / keyCount) + 1;
    const payload: Record<string, unknown> =
      version === 1
        ? { accountId: key, name: `Account ${i}`, mcc: 5000 + (i % 1000), score: i / 7, active: i % 2 === 0, openedAt: '2026-01-02T03:04:05Z', address: { city: 'Lyon', zip: String(69000 + (i % 10)) } }
        : { accountId: key, mcc: 6000 + version, active: version % 2 === 0 };
    const doc = { ...(docs.get(key) ?? {}), ...payload };
    docs.set(key, doc);
    const event: EntityEvent = {
      eventId: randomUUID(),
      deltaId: randomUUID(),
      requestId: null,
      tenant: config.tenant,
      entity: config.entity,
      operation: version === 1 ? 'create' : 'update',
      key,
      version,
      payload: JSON.stringify(payload),
      actor: { user: 'bench', roles: [] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      recordedAt: Date.now(),
    };
    events.push(event);
    images.push([key, doc.name, doc.mcc, doc.score, doc.active, doc.openedAt, JSON.stringify(doc.address), JSON.stringify(doc), version, event.eventId, `bench/0/${i}`, new Date(event.recordedAt).toISOString()]);
  }
  return { events, images };
}

async function openDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, drop: async () => undefined };
  const admin = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `bench_project_${process.pid}`;
  const run = async (text: string): Promise<void> => {
    const client = new Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) };
}

interface ProjectResult {
  lines: string[];
  projectorSeconds: number;
  coreSeconds: number;
  copySeconds: number;
  atFinalVersion: number;
}

async function measure(o: ProjectOptions): Promise<ProjectResult> {
  const eventCount = o.events;
  const keyCount = Math.min(o.keys, eventCount);
  const lines: string[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-project-'));
  const database = await openDatabase();
  const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0 });
  const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
  const schemas = loadSchemas();
  const log = await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url, logger: silentLogger(), fetchMaxWaitMs: 100 });
  const sql = await openPgSqlClient(database.url);
  const copyClient = new Client({ connectionString: database.url });
  await copyClient.connect();
  const suffix = String(process.pid);
  try {
    await migrate(sql, silentLogger());
    const entities = new InMemoryEntityConfigSource();
    const viaLog = entities.put(benchEntity(`via_log_${suffix}`));
    const core = new InMemoryEntityConfigSource().put(benchEntity(`core_${suffix}`));
    const { events, images } = makeEvents(viaLog, eventCount, keyCount);
    lines.push(`${eventCount.toLocaleString('en-US')} events (${keyCount.toLocaleString('en-US')} creates, then merging updates), Postgres ${database.url.replace(/\/\/[^@]*@/, '//')}`);

    // (1) Through the log: publish everything first, then time the projector from start to fully applied.
    await log.createTopics([{ topic: viaLog.persistence.topic, partitions: 3 }]);
    const publishStarted = process.hrtime.bigint();
    const last = new Map<number, PublishedRecord>();
    for (let i = 0; i < events.length; i += PUBLISH_CHUNK) {
      const published = await log.publish(
        events.slice(i, i + PUBLISH_CHUNK).map((value) => ({ topic: viaLog.persistence.topic, key: `bench/${viaLog.entity}/${value.key}`, value, schema: schemas.EntityEvent })),
      );
      for (const p of published) last.set(p.partition, p);
    }
    const publishSeconds = seconds(publishStarted);
    const projectorStarted = process.hrtime.bigint();
    const projector = await startTableProjector({ log, schemas, entities, sql, logger: silentLogger(), groupId: `bench-projector-${suffix}` });
    const joinSeconds = seconds(projectorStarted);
    const reached = await Promise.all([...last.values()].map((p) => projector.waitFor(p, 120_000)));
    const projectorSeconds = seconds(projectorStarted);
    await projector.stop();
    if (reached.includes(false)) throw new Error('the projector did not reach the end of the topic in time');

    // (2) The projection core alone, fed the same events in batches of 1,000 of one partition.
    const coreEvents = events.map((e) => ({ ...e, entity: core.entity }));
    const projection = new TableProjection({ sql, entities: new InMemoryEntityConfigSource([benchEntity(core.entity)]), logger: silentLogger(), projector: `bench-core-${suffix}` });
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
    const data = Buffer.from(images.map((image) => `${image.map(copyText).join('\t')}\n`).join(''));
    const copyStarted = process.hrtime.bigint();
    await copyIn(copyClient, `copy ${plain} from stdin`, data);
    const copySeconds = seconds(copyStarted);

    const finalVersions = new Map(events.map((e) => [e.key, e.version]));
    const rows = await sql.query<{ key: string; version: string }>(`select "accountId" as key, "_version"::text as version from "${viaLog.persistence.table}"`);
    const atFinalVersion = rows.rows.filter((r) => finalVersions.get(r.key) === Number(r.version)).length;
    const copied = await sql.query<{ n: string }>(`select count(*)::text as n from ${plain}`);
    lines.push(`publish to the embedded broker (not part of the ratio): ${publishSeconds.toFixed(2)} s, ${rate(eventCount, publishSeconds)}`);
    lines.push(`table projector via the log: ${projectorSeconds.toFixed(2)} s (group join ${joinSeconds.toFixed(2)} s), ${rate(eventCount, projectorSeconds)} events; rows at their final version: ${atFinalVersion}/${keyCount}`);
    lines.push(`projection core, batches of ${CORE_BATCH}: ${coreSeconds.toFixed(2)} s, ${rate(eventCount, coreSeconds)} events`);
    lines.push(`raw COPY of the ${Number(copied.rows[0]?.n).toLocaleString('en-US')} row images: ${copySeconds.toFixed(2)} s, ${rate(eventCount, copySeconds)} rows`);
    lines.push(`ratio projector / COPY: ${(copySeconds / projectorSeconds).toFixed(3)}; projection core / COPY: ${(copySeconds / coreSeconds).toFixed(3)}`);
    return { lines, projectorSeconds, coreSeconds, copySeconds, atFinalVersion };
  } finally {
    await copyClient.end();
    await sql.close();
    await log.close();
    await registry.stop();
    await kafka.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures for the one table of bench/run.ts. */
export async function run(o: ProjectOptions): Promise<Figure[]> {
  const r = await measure(o);
  const keys = Math.min(o.keys, o.events);
  const copy = { name: 'raw COPY of the same row images', value: o.events / r.copySeconds, unit: 'rows/s' };
  const notes = `${o.events} events on ${keys} records (creates, then merging updates)`;
  return [
    { name: 'table projector via the embedded broker', value: o.events / r.projectorSeconds, unit: 'events/s', baseline: copy, notes: `${notes}; rows at final version ${r.atFinalVersion}/${keys}` },
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
