import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { loadDevIssuer } from '../src/auth/dev-issuer';
import { loadSchemas, type DeltaEnvelope } from '../src/log';
import { deploymentLogger } from './support/service-log';
import { startService, type Service } from '../src/composition';
import { createBenchDatabase } from './support/database';
import type { Config } from '../src/config';
import { benchServiceConfig } from './support/service-config';
import { formatTable, secondsSince, type Figure } from './support/figures';

/**
 * Start-up after a burst: the service is stopped once N events were written since it started, then started
 * again and timed until GET /ready answers 200; baseline: the same restart right after, with no event written in
 * between (what a restart costs when there is nothing to catch up). A ratio near 1 means start-up does not grow
 * with the events of the previous run.
 * Usage: npx tsx bench/restart.ts [events=100000]
 */
export interface RestartOptions {
  readonly events: number;
}

const PUBLISH_CHUNK = 1000;

async function timedStart(config: Config): Promise<{ service: Service; seconds: number }> {
  const started = process.hrtime.bigint();
  const service = await startService(config, deploymentLogger(config.dataDir));
  for (;;) {
    const ready = await fetch(`${service.url}/ready`);
    if (ready.status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return { service, seconds: secondsSince(started) };
}

async function decided(db: Client): Promise<number> {
  return Number((await db.query<{ n: string }>('select count(*) as n from delta_outcomes')).rows[0]?.n);
}

export async function run(o: RestartOptions): Promise<Figure[]> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-restart-'));
  const database = await createBenchDatabase('bench_restart');
  const config = benchServiceConfig(dataDir, database.url);
  const schemas = loadSchemas();
  const db = new Client({ connectionString: database.url });
  await db.connect();
  let service: Service | undefined;
  try {
    service = (await timedStart(config)).service;
    const issuer = await loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience);
    // Deltas written straight to the log prove their actor with the caller's token (stage 5).
    const proof = { authorization: `Bearer ${await issuer.mint({ sub: 'bench', tenant: 'acme', roles: ['writer'] })}` };
    const run = randomUUID().slice(0, 8);
    for (let i = 0; i < o.events; i += PUBLISH_CHUNK) {
      const records = Array.from({ length: Math.min(PUBLISH_CHUNK, o.events - i) }, (_, j) => {
        const key = `rs-${run}-${i + j}`;
        const delta: DeltaEnvelope = {
          id: randomUUID(),
          requestId: null,
          tenant: 'acme',
          entity: 'merchant_account',
          operation: 'create',
          key,
          payload: JSON.stringify({ merchantId: key, name: `Merchant ${i + j}` }),
          actor: { user: 'bench', roles: ['writer'] },
          origin: { datacenter: config.datacenter },
          occurredAt: Date.now(),
          expectedVersion: null,
          retryOf: null,
        };
        return { topic: 'deltas', key: `acme/merchant_account/${key}`, value: delta, schema: schemas.DeltaEnvelope, headers: proof };
      });
      await service.log.publish(records);
    }
    while ((await decided(db)) < o.events) await new Promise((r) => setTimeout(r, 200));
    await service.stop();
    const afterBurst = await timedStart(config);
    service = afterBurst.service;
    await service.stop();
    const idle = await timedStart(config);
    service = idle.service;
    return [
      {
        name: `restart to ready after ${o.events.toLocaleString('en-US')} events`,
        value: 1 / afterBurst.seconds,
        unit: 'starts/s',
        baseline: { name: 'restart to ready with no new events', value: 1 / idle.seconds, unit: 'starts/s' },
        notes: `ready after ${afterBurst.seconds.toFixed(2)} s (no new events: ${idle.seconds.toFixed(2)} s)`,
      },
    ];
  } finally {
    await service?.stop();
    await db.end();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  run({ events: Number(process.argv[2] ?? 100_000) })
    .then((figures) => console.log(formatTable(figures)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
