import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDeltaProcessor } from '../streams/delta-processor';
import { PostgresRecordStateStore } from '../src/store/record-states/postgres-record-states';
import { PIPELINE_TOPICS, recordMessageKey } from '../src/log/topology';
import { startEmbeddedKafka } from '../src/embedded/kafka';
import { startEmbeddedRegistry } from '../src/embedded/registry';
import { loadSchemas, type DeltaEnvelope, type WriteLog } from '../src/log';
import { openKafkaWriteLog } from '../src/log/kafka';
import { silentLogger } from '../src/logger';
import { migrate } from '../src/store/migrator';
import { checkoutRoot } from '../src/stack/engine-cache';
import { openPgSqlClient } from '../src/store/pg-sql-client';
import type { SqlClient } from '../src/store/sql-client';
import { FileEntityConfigSource } from '../src/tenant';
import { createBenchDatabase } from './support/database';
import { secondsSince } from './support/figures';

/**
 * Timing spans of the pipeline stage alone (deltas topic → verdict), the slowest stage of the write path:
 * the delta processor runs on the embedded broker and a Postgres server with its write log, state store and
 * SQL client wrapped in proxies that time every call. Prints calls, mean and total per span, per delta.
 * Usage: npx tsx bench/profile-pipeline.ts [deltas=3000]
 */
const DELTAS = Number(process.argv[2] ?? 3000);

class Spans {
  private readonly totals = new Map<string, { calls: number; ms: number }>();

  /** A proxy of `target` whose methods record their (async) duration under `<prefix>.<method>`. */
  wrap<T extends object>(prefix: string, target: T, only?: readonly string[]): T {
    return new Proxy(target, {
      get: (t, property, receiver) => {
        const value: unknown = Reflect.get(t, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string' || (only && !only.includes(property))) return value;
        return (...args: unknown[]) => {
          const started = performance.now();
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(t, args);
          const label =
            prefix === 'sql' && property === 'query' ? `sql.query ${String(args[0]).trim().split(/\s+/).slice(0, 3).join(' ')}` : `${prefix}.${property}`;
          if (result instanceof Promise) return result.finally(() => this.add(label, performance.now() - started));
          this.add(label, performance.now() - started);
          return result;
        };
      },
    });
  }

  add(label: string, ms: number): void {
    const total = this.totals.get(label) ?? { calls: 0, ms: 0 };
    total.calls += 1;
    total.ms += ms;
    this.totals.set(label, total);
  }

  report(deltas: number): string {
    return [...this.totals]
      .sort((a, b) => b[1].ms - a[1].ms)
      .map(
        ([label, t]) =>
          `${label.padEnd(48)} ${String(t.calls).padStart(7)} calls  mean ${(t.ms / t.calls).toFixed(2).padStart(7)} ms  per delta ${(t.ms / deltas).toFixed(2).padStart(7)} ms`,
      )
      .join('\n');
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-profile-'));
  const database = await createBenchDatabase('bench_profile');
  const kafka = await startEmbeddedKafka({ dataDir: path.join(dir, 'kafka'), port: 0 });
  const registry = await startEmbeddedRegistry({ dataDir: path.join(dir, 'registry'), port: 0 });
  const rawLog = await openKafkaWriteLog({ brokers: kafka.brokers, registryUrl: registry.url, logger: silentLogger(), fetchMaxWaitMs: 100 });
  const rawSql = await openPgSqlClient(database.url);
  const spans = new Spans();
  try {
    await migrate(rawSql, silentLogger());
    const schemas = loadSchemas();
    const sql = spans.wrap<SqlClient>('sql', rawSql, ['query', 'transaction']);
    const log = spans.wrap<WriteLog>('log', rawLog, ['publish', 'createTopics']);
    const states = spans.wrap('states', new PostgresRecordStateStore(sql));
    const entities = new FileEntityConfigSource({ directory: path.join(checkoutRoot(), 'config', 'entities') });
    let verdicts = 0;
    let allDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allDone = resolve));
    const processor = await startDeltaProcessor({
      // The bench measures the stages' work; its own deltas are trusted as the service's HTTP ones are.
      actors: { prove: async ({ delta }) => delta.actor },
      log,
      schemas,
      entities,
      states,
      logger: silentLogger(),
      onVerdict: () => {
        verdicts += 1;
        if (verdicts === DELTAS) allDone();
      },
    });
    const deltas: DeltaEnvelope[] = Array.from({ length: DELTAS }, (_, i) => ({
      id: randomUUID(),
      requestId: null,
      tenant: 'acme',
      entity: 'merchant_account',
      operation: 'create',
      key: `p-${i}`,
      payload: JSON.stringify({ merchantId: `p-${i}`, name: `Merchant ${i}`, country: 'DE', mcc: 5000 + (i % 1000) }),
      actor: { user: 'bench', roles: ['writer'] },
      origin: { datacenter: 'dc1' },
      occurredAt: Date.now(),
      expectedVersion: null,
      retryOf: null,
    }));
    const started = process.hrtime.bigint();
    for (let i = 0; i < deltas.length; i += 500) {
      await rawLog.publish(
        deltas.slice(i, i + 500).map((value) => ({
          topic: PIPELINE_TOPICS.deltas,
          key: recordMessageKey(value.tenant, value.entity, value.key),
          value,
          schema: schemas.DeltaEnvelope,
        })),
      );
    }
    await done;
    const seconds = secondsSince(started);
    await processor.stop();
    console.log(`pipeline stage alone: ${DELTAS} creates in ${seconds.toFixed(2)} s = ${(DELTAS / seconds).toFixed(0)} deltas/s (3 partitions in parallel)`);
    console.log(spans.report(DELTAS));
  } finally {
    await rawSql.close();
    await rawLog.close();
    await registry.stop();
    await kafka.stop();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
