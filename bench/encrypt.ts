import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadDevIssuer } from '../src/auth/dev-issuer';
import { loadConfig } from '../src/config';
import { deploymentLogger } from './support/service-log';
import { startService } from '../src/composition';
import { servedLoad, type ServedLoad } from './http-load';
import { startBareEncryptServer } from './support/bare-encrypt-server';
import { createBenchDatabase } from './support/database';
import { LoadProcess } from './support/load-process';
import { inTurns, medianBy, spread } from './support/repeated';
import type { Figure } from './support/figures';
import type { EncryptionService } from '../src/crypto/encryption-service';

/**
 * HTTP ceilings and encryption dispatch throughput: GET /whoami (an authenticated no-op) and 1 KiB encryptions
 * through HTTP for aes and hsm, each against GET /health (anonymous, no work) in the same run; and the AES core
 * against raw node:crypto AES-256-GCM; and the platform's ceiling for the aes case (support/bare-encrypt-server.ts).
 * Usage: npx tsx bench/encrypt.ts [seconds per case, default 5] [concurrency, default 16]
 */
export interface EncryptOptions {
  /** Seconds per case. */
  readonly seconds: number;
  /** Concurrent keep-alive HTTP clients. */
  readonly concurrency: number;
}

/** Seconds of unmeasured load on each case before any is measured. */
const WARM_UP_SECONDS = 1;

interface EncryptResult {
  health: ServedLoad;
  noop: ServedLoad;
  aes: ServedLoad;
  hsm: ServedLoad | undefined;
  core: { raw: number; service: number };
  /** node:http alone, same clients and body: its GET and its encrypt. */
  bare: { health: ServedLoad; aes: ServedLoad };
  /** Every turn's rate of the service's aes case and of the bare ceiling (`aes` and `bare.aes` are their medians). */
  turns: { aes: number[]; bare: number[] };
}

/** The service's aes case and the bare ceiling are measured in turns, this many each; the median sample is used. */
const TURNS = 3;

async function measure(o: EncryptOptions): Promise<EncryptResult> {
  const { seconds, concurrency } = o;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-'));
  // The keyring on a PostgreSQL server: DATABASE_URL when set, else a fresh database on the benchmark server.
  const database = process.env.DATABASE_URL ? undefined : await createBenchDatabase('bench_encrypt');
  const config = loadConfig({
    ...process.env,
    ...(database && { DATABASE_URL: database.url }),
    DELTABROKER_DATA_DIR: dataDir,
    DELTABROKER_HTTP_PORT: '0',
    DELTABROKER_KAFKA_PORT: '0',
    DELTABROKER_REGISTRY_PORT: '0',
  });
  const service = await startService(config, deploymentLogger(config.dataDir));
  // The HTTP clients run in a process of their own, so the service's thread does only the service's work.
  const clients = LoadProcess.start();
  try {
    const issuer = await loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience);
    const token = await issuer.mint({ sub: 'bench', tenant: 'acme', roles: ['admin'] });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const payload = randomBytes(768).toString('base64'); // 1 KiB of text
    const body = (method: string): string => JSON.stringify({ dispatch: { operation: 'encrypt', method }, payload });

    const load = (method: 'GET' | 'POST', url: string, requestBody?: string, forSeconds = seconds) =>
      servedLoad(() =>
        clients.httpLoad({ url: `${service.url}${url}`, method, headers, seconds: forSeconds, concurrency, ...(requestBody && { body: requestBody }) }),
      );
    // Not counted: the first case measured would otherwise also pay for JIT compilation and the service's own
    // start-up work (consumer groups joining, projections starting), which made /health look slower than /whoami.
    const warmUp = (method: 'GET' | 'POST', url: string, requestBody?: string) =>
      clients.httpLoad({ url: `${service.url}${url}`, method, headers, seconds: WARM_UP_SECONDS, concurrency, ...(requestBody && { body: requestBody }) });
    await warmUp('GET', '/health');
    await warmUp('GET', '/whoami');
    await warmUp('POST', '/dispatch', body('aes'));
    const health = await load('GET', '/health');
    const noop = await load('GET', '/whoami');
    const hsm = service.hsm ? await load('POST', '/dispatch', body('hsm')) : undefined;
    const core = await coreVsNodeCrypto(service.crypto, payload, seconds);
    // The target's two sides in turns, so both meet the same drift of the host (support/repeated.ts).
    const bare = await startBareCeiling(clients, body('aes'), o);
    try {
      const turns = await inTurns(
        TURNS,
        () => load('POST', '/dispatch', body('aes'), seconds / 2),
        () => bare.aes(seconds / 2),
      );
      const byRate = (l: ServedLoad): number => l.perSecond;
      return {
        health,
        noop,
        aes: medianBy(turns.a, byRate),
        hsm,
        core,
        bare: { health: bare.health, aes: medianBy(turns.b, byRate) },
        turns: { aes: turns.a.map(byRate), bare: turns.b.map(byRate) },
      };
    } finally {
      await bare.close();
    }
  } finally {
    clients.stop();
    await service.stop();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The aes case on bare node:http, measured while the service is idle: what no change to the service can beat.
 * Started, warmed up and its GET measured; its aes case is measured on demand, in turns with the service's.
 */
async function startBareCeiling(
  clients: LoadProcess,
  requestBody: string,
  o: EncryptOptions,
): Promise<{ health: ServedLoad; aes: (seconds: number) => Promise<ServedLoad>; close: () => Promise<void> }> {
  const server = await startBareEncryptServer();
  const load = (seconds: number, body?: string) =>
    servedLoad(() =>
      clients.httpLoad({
        url: `${server.url}/dispatch`,
        method: body ? 'POST' : 'GET',
        headers: {},
        seconds,
        concurrency: o.concurrency,
        ...(body && { body }),
      }),
    );
  try {
    await load(WARM_UP_SECONDS);
    await load(WARM_UP_SECONDS, requestBody);
    return { health: await load(o.seconds), aes: (seconds) => load(seconds, requestBody), close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}

const rates = (values: readonly number[]): string => spread(values, (n) => Math.round(n).toLocaleString('en-US'));

const cpu = (load: ServedLoad): string => `${load.serviceCpuUsPerRequest.toFixed(1)} µs/req`;

/** The figures for the one table of bench/run.ts. */
export async function run(o: EncryptOptions): Promise<Figure[]> {
  const r = await measure(o);
  const health = { name: 'GET /health (anonymous, no work)', value: r.health.perSecond, unit: 'req/s' };
  const loadNotes = (load: ServedLoad): string =>
    `1 KiB, ${o.concurrency} clients; p50 ${load.p50Ms.toFixed(2)} ms p99 ${load.p99Ms.toFixed(2)} ms, ${load.errors} errors; service CPU ${cpu(load)} (health ${cpu(r.health)}, p50 ${r.health.p50Ms.toFixed(2)} ms)`;
  const http = (name: string, load: ServedLoad): Figure => ({ name, value: load.perSecond, unit: 'req/s', baseline: health, notes: loadNotes(load) });
  return [
    {
      ...http('GET /whoami (authenticated no-op)', r.noop),
      notes: `${o.concurrency} clients; p50 ${r.noop.p50Ms.toFixed(2)} ms p99 ${r.noop.p99Ms.toFixed(2)} ms, ${r.noop.errors} errors; service CPU ${cpu(r.noop)} (health ${cpu(r.health)})`,
    },
    {
      ...http('encrypt aes via HTTP POST /dispatch', r.aes),
      // Issue 34's decision: the service against what bare node:http does with the same request, same run.
      baseline: { name: 'encrypt aes via bare node:http, same clients (median of turns)', value: r.bare.aes.perSecond, unit: 'req/s' },
      target: { on: 'ratio', atLeast: 0.85 },
      notes: `${loadNotes(r.aes)}; median of ${TURNS} turns in alternation with the bare ceiling: service ${rates(r.turns.aes)}, bare ${rates(r.turns.bare)} req/s`,
    },
    ...(r.hsm ? [http('encrypt hsm (SoftHSM2) via HTTP POST /dispatch', r.hsm)] : []),
    {
      name: 'encrypt aes via bare node:http (platform ceiling)',
      value: r.bare.aes.perSecond,
      unit: 'req/s',
      baseline: health,
      notes: `no framework, auth, keyring, metrics or log: body read, JSON, AES-GCM, JSON answer; same clients and body; its own GET ${Math.round(r.bare.health.perSecond).toLocaleString('en-US')} req/s (${cpu(r.bare.health)}), its encrypt ${cpu(r.bare.aes)}`,
    },
    {
      name: 'AES core (EncryptionService.encrypt, 1 KiB)',
      value: r.core.service,
      unit: 'ops/s',
      baseline: { name: 'raw node:crypto AES-256-GCM', value: r.core.raw, unit: 'ops/s' },
      notes: 'one at a time, same process',
    },
  ];
}

async function main(): Promise<void> {
  const seconds = Number(process.argv[2] ?? 5);
  const concurrency = Number(process.argv[3] ?? 16);
  const { health, noop, aes, hsm, core, bare } = await measure({ seconds, concurrency });
  const row = (name: string, r: typeof noop) =>
    `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(8)} req/s  p50 ${r.p50Ms.toFixed(2).padStart(6)} ms  p99 ${r.p99Ms.toFixed(2).padStart(6)} ms  errors ${r.errors}  service CPU ${cpu(r)}  ratio to health ${(r.perSecond / health.perSecond).toFixed(2)}`;
  console.log(`encryption dispatch, 1 KiB payloads, ${concurrency} keep-alive clients, ${seconds}s per case`);
  console.log(row('GET /health', health));
  console.log(row('GET /whoami (no-op, authenticated)', noop));
  console.log(row('POST /dispatch aes', aes));
  if (hsm) console.log(row('POST /dispatch hsm (SoftHSM2)', hsm));
  else console.log('POST /dispatch hsm: skipped, no HSM (install softhsm2)');
  console.log(row('bare node:http GET', bare.health));
  console.log(row('bare node:http POST aes (ceiling)', bare.aes));
  console.log(
    `AES core (EncryptionService.encrypt)  ${core.service.toFixed(0)} ops/s vs raw node:crypto AES-256-GCM ${core.raw.toFixed(0)} ops/s: ratio ${(core.service / core.raw).toFixed(2)}`,
  );
}

async function coreVsNodeCrypto(crypto: EncryptionService, payload: string, seconds: number) {
  const caller = { tenant: 'acme', user: 'bench' };
  const key = randomBytes(32);
  const plaintext = Buffer.from(payload);
  const until = (ms: number) => performance.now() + ms;

  const rawLoop = (ms: number): number => {
    let raw = 0;
    const rawEnd = until(ms);
    while (performance.now() < rawEnd) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from('aes256skv1:default:v1|acme'));
      Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]).toString('base64url');
      raw += 1;
    }
    return raw;
  };
  const serviceLoop = async (ms: number): Promise<number> => {
    let done = 0;
    const serviceEnd = until(ms);
    while (performance.now() < serviceEnd) {
      await crypto.encrypt(caller, { method: 'aes', encoding: 'utf8', payload });
      done += 1;
    }
    return done;
  };
  // Not counted: both loops compiled first, so neither pays for JIT warm-up inside its measured half.
  rawLoop(WARM_UP_SECONDS * 200);
  await serviceLoop(WARM_UP_SECONDS * 200);
  const rawRate = rawLoop(seconds * 500) / (seconds * 0.5);
  return { raw: rawRate, service: (await serviceLoop(seconds * 500)) / (seconds * 0.5) };
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
