import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { loadDevIssuer } from '../src/auth/dev-issuer';
import { deploymentLogger } from './support/service-log';
import { startService } from '../src/composition';
import { compileRql } from '../src/store/rql';
import { readableFields } from '../src/tenant';
import { servedLoad, type LoadResult } from './http-load';
import { createBenchDatabase } from './support/database';
import { LoadProcess } from './support/load-process';
import { benchServiceConfig } from './support/service-config';
import { formatTable, quantile, type Figure } from './support/figures';

/**
 * RQL reads through HTTP (`POST /` with operation `read`) against the same two SQL statements (the page and
 * its count, as the read path sends them, in parallel) through a plain pg Pool of the service's size, with
 * the same concurrency, on the same table, in the same run. The table `tenant_acme.merchant_account` is filled with
 * `rows` projected-shape rows by SQL (reads do not care how rows got there).
 * Usage: npx tsx bench/read.ts [seconds per case=5] [concurrency=16] [rows=50000]
 */
export interface ReadOptions {
  readonly seconds: number;
  readonly concurrency: number;
  readonly rows: number;
}

const QUERIES: readonly { name: string; rql: string }[] = [
  { name: 'RQL point read eq(merchantId,m-4242)', rql: 'eq(merchantId,m-4242)' },
  { name: 'RQL page eq(country,DE)&sort(-mcc)&limit(10)', rql: 'eq(country,DE)&sort(-mcc)&limit(10)' },
];

/** Seconds of unmeasured load on each side before it is measured. */
const WARM_UP_SECONDS = 1;

/** `concurrency` loops running `once` for `seconds`; the same figures runHttpLoad gives. */
async function closedLoop(seconds: number, concurrency: number, once: () => Promise<void>): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await once().catch(() => (errors += 1));
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds: elapsed,
    perSecond: latencies.length / elapsed,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

export async function run(o: ReadOptions): Promise<Figure[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-read-'));
  const database = await createBenchDatabase('bench_read');
  const config = benchServiceConfig(dataDir, database.url);
  const service = await startService(config, deploymentLogger(config.dataDir));
  const pool = new Pool({ connectionString: database.url, max: 10 });
  // The HTTP clients run in a process of their own, so the service's thread does only the service's work.
  const clients = LoadProcess.start();
  try {
    const entity = await service.entities.get('acme', 'merchant_account');
    if (!entity) throw new Error('no acme/merchant_account configuration');
    await pool.query(
      `insert into tenant_acme.merchant_account ("merchantId", name, country, mcc, status, "_doc", "_version", "_event_id", "_position", "_updated_at")
       select 'm-' || i, 'Merchant ' || i, (array['DE','FR','GB','NL'])[1 + i % 4], 5000 + i % 1000, 'active',
              jsonb_build_object('merchantId', 'm-' || i, 'name', 'Merchant ' || i, 'country', (array['DE','FR','GB','NL'])[1 + i % 4], 'mcc', 5000 + i % 1000, 'status', 'active'),
              1, gen_random_uuid()::text, 'acme.merchant_account.events/0/' || i, now()
         from generate_series(1, $1::int) as i`,
      [o.rows],
    );
    await pool.query('analyze tenant_acme.merchant_account');
    const issuer = await loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience);
    const token = await issuer.mint({ sub: 'bench', tenant: 'acme', roles: ['admin'] });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    const figures: Figure[] = [];
    for (const q of QUERIES) {
      const body = JSON.stringify({ dispatch: { entity: 'merchant_account', operation: 'read' }, payload: q.rql });
      const viaHttpFor = (seconds: number) =>
        servedLoad(() => clients.httpLoad({ url: `${service.url}/`, method: 'POST', headers, body, seconds, concurrency: o.concurrency }));
      const compiled = compileRql(q.rql, entity, { readableFields: readableFields(entity, ['admin'], 'read') });
      const viaPgFor = (seconds: number) =>
        closedLoop(seconds, o.concurrency, async () => {
          await Promise.all([pool.query(compiled.text, compiled.values), pool.query(compiled.countText, compiled.countValues)]);
        });
      // Not counted: both sides first open their pool's connections and get compiled (the service's side also
      // finishes its start-up), which otherwise fell on whichever case ran first.
      await viaHttpFor(WARM_UP_SECONDS);
      await viaPgFor(WARM_UP_SECONDS);
      const viaHttp = await viaHttpFor(o.seconds);
      const viaPg = await viaPgFor(o.seconds);
      figures.push({
        name: `${q.name} via HTTP`,
        value: viaHttp.perSecond,
        unit: 'req/s',
        baseline: { name: 'same SQL (page + count) via pg Pool', value: viaPg.perSecond, unit: 'req/s' },
        notes: `${o.rows} rows, ${o.concurrency} clients; p50 ${viaHttp.p50Ms.toFixed(2)} ms p99 ${viaHttp.p99Ms.toFixed(2)} ms, ${viaHttp.errors} errors; service CPU ${viaHttp.serviceCpuUsPerRequest.toFixed(1)} µs/req (pg p50 ${viaPg.p50Ms.toFixed(2)} ms)`,
      });
    }
    return figures;
  } finally {
    clients.stop();
    await pool.end();
    await service.stop();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  run({ seconds: Number(process.argv[2] ?? 5), concurrency: Number(process.argv[3] ?? 16), rows: Number(process.argv[4] ?? 50_000) })
    .then((figures) => console.log(formatTable(figures)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
