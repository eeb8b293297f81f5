import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { completion, copyBaseline, ms, openE2eBench, type Phase, type PhaseResult } from './support/e2e-harness';
import { benchServiceConfig } from './support/service-config';
import { formatTable, quantile, type Figure } from './support/figures';
import { kcatAvailable, produceWithKcat } from './support/kcat-producer';
import { medianBy, spread } from './support/repeated';
import { servedLoad, type LoadResult } from './http-load';

/** One measurement of the service's baselines (see measureBaselines). */
interface BaselineSample {
  readonly health: LoadResult;
  readonly whoami: LoadResult;
  readonly healthMicros: number;
}

/**
 * End to end on the whole service (embedded broker and registry, pipeline, action emitters, table projector,
 * a Postgres server): creates of `acme/merchant_account` (a) produced straight to the deltas topic by a kafkajs
 * producer, then by librdkafka (kcat, when installed), and (b) written through HTTP `POST /` (each answered after
 * the pipeline's verdict), timed until every one is persisted, projected into its Postgres table and published on
 * both action topics. Latency
 * from publish to projection comes from a trigger on the projection table that stamps each row's insert time
 * (clock_timestamp, the same clock as the producer's). Baseline: a raw COPY of the same projected rows into a
 * table of the same columns without keys, in the same database, in the same run. The kafkajs producer and the
 * HTTP clients run in a process of their own (support/load-process.ts), as outside clients do; kcat is one too.
 * Usage: npx tsx bench/end-to-end.ts [deltas=20000] [http deltas=2000]
 */
export interface EndToEndOptions {
  /** Deltas produced with kafkajs, and again with kcat. */
  readonly deltas: number;
  /** Deltas written through HTTP. */
  readonly httpDeltas: number;
  /** Concurrent keep-alive HTTP clients. */
  readonly httpConcurrency?: number;
  /** Creates sent one after another by a single HTTP client (the lone-write latency). */
  readonly loneWrites?: number;
  /** Deltas per kafkajs send, and sends in flight. */
  readonly sendBatch?: number;
  readonly sendsInFlight?: number;
  /** Longest wait for a phase to be fully projected. */
  readonly timeoutMs?: number;
}

/** Deltas produced, and HTTP writes made, before the measured phases (at most as many as the phase itself). */
const WARM_UP_DELTAS = 10_000;
const WARM_UP_HTTP_WRITES = 5_000;

export async function run(options: EndToEndOptions): Promise<Figure[]> {
  const { deltas, httpDeltas } = options;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-e2e-'));
  const bench = await openE2eBench((databaseUrl) => benchServiceConfig(dataDir, databaseUrl), options.timeoutMs);
  const { service, load, proof, token, phase, timed, noted } = bench;
  try {
    const writeOverHttp = async (p: Phase, concurrency: number): Promise<{ latencies: number[]; errors: number }> => {
      const answers = await load.writeOverHttp({ prefix: p.prefix, count: p.count, url: service.url, token, concurrency });
      noted(p, answers);
      return answers;
    };
    // Warm-up, not timed, through both paths measured below: topics, schema ids, consumer fetch loops, pool
    // connections and table statements are in place, and V8 has compiled the hot code, before timing. With only
    // 200 deltas of warm-up, V8's compiler threads were still busy during the measured phases (about 575 optimising
    // compilations during 10,000 HTTP writes, against about 140 after 20,000 more), which the figures counted as
    // the service's CPU.
    const warm = phase('warm-', Math.min(WARM_UP_DELTAS, deltas));
    await timed(warm, () => bench.produce(warm, options.sendBatch ?? 100, options.sendsInFlight ?? 4));
    const warmHttp = phase('warm-http-', Math.min(WARM_UP_HTTP_WRITES, httpDeltas));
    await timed(warmHttp, async () => {
      await writeOverHttp(warmHttp, options.httpConcurrency ?? 64);
    });
    const idleRss = process.memoryUsage().rss;
    // The baselines, in the load process as the writes are: GET /health from one client (the lone writer's),
    // GET /whoami from 16 (an authenticated no-op, the HTTP writes'), and the service's CPU per GET /health with 16
    // clients, the unit the rows give the service's CPU per delta in. A slower or busier host changes these about as
    // it changes the figures, where it halves a rate (the same code did 165 µs of service, PostgreSQL and producer CPU
    // per burst delta on one host, 320 on another). Each is measured before, between and after the phases, and its
    // median sample used (support/repeated.ts).
    const baselines: BaselineSample[] = [];
    const measureBaselines = async (): Promise<void> => {
      const health = await load.httpLoad({ url: `${service.url}/health`, method: 'GET', headers: {}, seconds: 1, concurrency: 1 });
      const whoami = await load.httpLoad({ url: `${service.url}/whoami`, method: 'GET', headers: proof, seconds: 1.5, concurrency: 16 });
      const healthLoad = await servedLoad(() => load.httpLoad({ url: `${service.url}/health`, method: 'GET', headers: {}, seconds: 1.5, concurrency: 16 }));
      baselines.push({ health, whoami, healthMicros: healthLoad.serviceCpuUsPerRequest });
    };
    await measureBaselines();

    const viaKafka = phase('kafka-', deltas);
    const kafka = await timed(viaKafka, () => bench.produce(viaKafka, options.sendBatch ?? 100, options.sendsInFlight ?? 4));
    // Latency without a backlog: half the rate just measured, for about ten seconds.
    const pacedRate = Math.max(10, Math.round(deltas / kafka.seconds / 2));
    const viaKafkaPaced = phase('paced-', Math.min(Math.ceil(deltas / 2), pacedRate * 10));
    const paced = await timed(viaKafkaPaced, () => bench.produce(viaKafkaPaced, 10, 4, pacedRate));
    // The same burst from librdkafka (kcat), whose CPU per delta is a fraction of kafkajs's: the service's rate when
    // the client takes little of the two cores it shares with the service and PostgreSQL. Records per produce request
    // and requests in flight are the kafkajs row's (a kafkajs send of 100 is one request; librdkafka puts one
    // partition's batch in a request), so the two rows differ in the client rather than in batching. kcat queues its
    // input far faster than it is sent, so 5 ms of linger fills every batch but the last few.
    const viaKcat = kcatAvailable() ? phase('kcat-', deltas) : undefined;
    let kcat: PhaseResult | undefined;
    if (viaKcat) {
      const input = path.join(dataDir, 'kcat-deltas.bin');
      await load.writeKcatInput({ prefix: viaKcat.prefix, count: viaKcat.count, registryUrl: service.registryUrl, file: input });
      kcat = await timed(viaKcat, async () => {
        const started = Date.now();
        const run = await produceWithKcat({
          brokers: service.brokers,
          topic: 'deltas',
          input,
          headers: proof,
          properties: {
            'batch.num.messages': options.sendBatch ?? 100,
            'max.in.flight.requests.per.connection': options.sendsInFlight ?? 4,
            'linger.ms': 5,
          },
        });
        for (let i = 0; i < viaKcat.count; i++) viaKcat.sentAt.set(`${viaKcat.prefix}${i}`, started);
        viaKcat.clientCpuMicros = run.cpuMicros;
      });
    }
    await measureBaselines();
    const viaHttp = phase('http-', httpDeltas);
    let answers: { latencies: number[]; errors: number } = { latencies: [], errors: 0 };
    const overHttp = await timed(viaHttp, async () => {
      answers = await writeOverHttp(viaHttp, options.httpConcurrency ?? 64);
    });
    // A lone writer: each write waits for the one before, so nothing is batched with it.
    const lone = phase('lone-', options.loneWrites ?? 100);
    let loneAnswers: { latencies: number[]; errors: number } = { latencies: [], errors: 0 };
    const alone = await timed(lone, async () => {
      loneAnswers = await writeOverHttp(lone, 1);
    });
    await measureBaselines();
    const { health } = medianBy(baselines, (b) => b.health.perSecond);
    const { whoami } = medianBy(baselines, (b) => b.whoami.perSecond);
    const { healthMicros } = medianBy(baselines, (b) => b.healthMicros);
    const whoamiP99 = medianBy(baselines, (b) => b.whoami.p99Ms).whoami.p99Ms;
    const healthP50 = medianBy(baselines, (b) => b.health.p50Ms).health.p50Ms;
    const drift = (what: string, values: number[], format: (n: number) => string): string => `${what} ${spread(values, format)} samples`;
    const peakRss = process.resourceUsage().maxRSS * 1024;

    const lat = (r: PhaseResult): string =>
      `publish→projected p50 ${ms(quantile(r.latencies, 0.5))} p99 ${ms(quantile(r.latencies, 0.99))} ` +
      `(publish→decided p50 ${ms(quantile(r.toDecision, 0.5))}, decided→row p50 ${ms(quantile(r.toRow, 0.5))}); ${r.cpu}; ` +
      `service CPU per delta ${(r.serviceMicros / healthMicros).toFixed(1)} × its CPU per GET /health (${healthMicros.toFixed(1)} µs, 16 clients)`;
    const healthCpuBaseline = { name: 'service CPU per GET /health, 16 clients (median)', value: healthMicros, unit: 'µs' };
    const serviceCpu = (name: string, r: PhaseResult, atMost: number): Figure => ({
      name,
      value: r.serviceMicros,
      unit: 'µs',
      baseline: healthCpuBaseline,
      target: { on: 'ratio', atMost },
      notes: `${r.cpu}; ${drift(
        'GET /health CPU',
        baselines.map((b) => b.healthMicros),
        (n) => `${n.toFixed(1)} µs`,
      )}`,
    });
    return [
      {
        name: `e2e: kafkajs producer → persisted+projected+actions (${deltas})`,
        value: deltas / kafka.seconds,
        unit: 'deltas/s',
        baseline: copyBaseline(kafka),
        notes: `${lat(kafka)}; ${completion(kafka, deltas)}`,
      },
      {
        name: `e2e: kafkajs producer paced at half that rate (${viaKafkaPaced.count})`,
        value: viaKafkaPaced.count / paced.seconds,
        unit: 'deltas/s',
        baseline: copyBaseline(paced),
        notes: `${lat(paced)}; offered ${pacedRate}/s; ${completion(paced, viaKafkaPaced.count)}`,
      },
      ...(kcat
        ? [
            {
              name: `e2e: librdkafka (kcat) producer → persisted+projected+actions (${deltas})`,
              value: deltas / kcat.seconds,
              unit: 'deltas/s',
              baseline: copyBaseline(kcat),
              target: { on: 'ratio', atLeast: 0.045 },
              notes:
                `${lat(kcat)}; ${completion(kcat, deltas)}; values Avro-encoded before the clock (the kafkajs row encodes while timed); ` +
                `every delta's publish time is kcat's start, as kcat reports no per-record send time`,
            } satisfies Figure,
            serviceCpu('e2e: the librdkafka burst, service CPU per delta', kcat, 1.5),
          ]
        : []),
      {
        name: `e2e: HTTP POST / (${options.httpConcurrency ?? 64} clients) → projected+actions (${httpDeltas})`,
        value: httpDeltas / overHttp.seconds,
        unit: 'deltas/s',
        baseline: { name: 'GET /whoami, 16 clients (median)', value: whoami.perSecond, unit: 'req/s' },
        target: { on: 'ratio', atLeast: 0.4 },
        notes:
          `${lat(overHttp)}; HTTP answer p50 ${ms(quantile(answers.latencies, 0.5))} p99 ${ms(quantile(answers.latencies, 0.99))}, ${answers.errors} errors; ` +
          `${completion(overHttp, httpDeltas)}; ${(httpDeltas / overHttp.seconds / overHttp.copyRowsPerSecond).toFixed(4)} of COPY (${Math.round(overHttp.copyRowsPerSecond)} rows/s); ` +
          drift(
            'GET /whoami',
            baselines.map((b) => b.whoami.perSecond),
            (n) => `${Math.round(n)} req/s`,
          ),
      },
      {
        name: `e2e: HTTP POST / (${options.httpConcurrency ?? 64} clients), answer p99`,
        value: quantile(answers.latencies, 0.99),
        unit: 'ms',
        baseline: { name: 'GET /whoami p99, 16 clients (median)', value: whoamiP99, unit: 'ms' },
        target: { on: 'value', atMost: 60 },
      },
      serviceCpu('e2e: HTTP POST /, service CPU per write', overHttp, 6),
      {
        name: `e2e: a lone HTTP writer (1 client, ${lone.count} creates), answers/s`,
        value: 1000 / quantile(loneAnswers.latencies, 0.5),
        unit: 'writes/s',
        baseline: { name: 'GET /health, 1 client (median)', value: health.perSecond, unit: 'req/s' },
        target: { on: 'ratio', atLeast: 0.07 },
        notes:
          `HTTP answer p50 ${ms(quantile(loneAnswers.latencies, 0.5))} p99 ${ms(quantile(loneAnswers.latencies, 0.99))}, ${loneAnswers.errors} errors; ${alone.cpu}; ` +
          drift(
            'GET /health, 1 client,',
            baselines.map((b) => b.health.perSecond),
            (n) => `${Math.round(n)} req/s`,
          ),
      },
      {
        name: 'e2e: a lone HTTP writer, answer p50',
        value: quantile(loneAnswers.latencies, 0.5),
        unit: 'ms',
        baseline: { name: 'GET /health p50, 1 client (median)', value: healthP50, unit: 'ms' },
        target: { on: 'value', atMost: 2.5 },
      },
      {
        name: 'e2e: peak RSS of the service process',
        value: peakRss / 2 ** 20,
        unit: 'MiB',
        baseline: { name: 'RSS after start and warm-up', value: idleRss / 2 ** 20, unit: 'MiB' },
        target: { on: 'value', atMost: 250 },
        notes: 'ratio > 1 is growth; the process holds broker, registry, pipeline, projectors and HTTP (the load clients run in their own)',
      },
    ];
  } finally {
    await bench.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  run({ deltas: Number(process.argv[2] ?? 20_000), httpDeltas: Number(process.argv[3] ?? 2000) })
    .then((figures) => console.log(formatTable(figures)))
    .catch((error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    });
}
