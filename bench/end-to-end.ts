import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { Client } from 'pg';
import { loadDevIssuer } from '../src/auth/dev-issuer';
import { deploymentLogger } from './support/service-log';
import { startService, type Service } from '../src/composition';
import { copyIn, copyRows } from './support/copy';
import { cpuPerDelta, postgresServerPid, sampleCpu, type CpuSample } from './support/cpu-time';
import { createBenchDatabase } from './support/database';
import { benchServiceConfig } from './support/service-config';
import { formatTable, quantile, secondsSince, type Figure } from './support/figures';
import { ENTITY, TENANT, type SentTimes } from './support/load-clients';
import { LoadProcess } from './support/load-process';
import { kcatAvailable, produceWithKcat } from './support/kcat-producer';

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

/** The projection table of acme/merchant_account, in acme's schema (src/tenant/physical-names.ts). */
const [SCHEMA, TABLE_NAME] = ['tenant_acme', 'merchant_account'];
const TABLE = `${SCHEMA}.${TABLE_NAME}`;

interface Phase {
  readonly prefix: string;
  readonly count: number;
  /** Wall-clock ms at which each key's delta was handed to the producer or HTTP client. */
  readonly sentAt: Map<string, number>;
  /** CPU the client process spent on the phase, µs. */
  clientCpuMicros: number;
}

interface PhaseResult {
  readonly seconds: number;
  readonly projectedSeconds: number;
  readonly actionsSeconds: number;
  readonly latencies: number[];
  /** Publish → the pipeline's decision (the event's recordedAt), and decision → projected row. */
  readonly toDecision: number[];
  /** CPU per delta of the service, PostgreSQL and the clients while the phase ran. */
  readonly cpu: string;
  /** The service process's CPU per delta, µs. */
  readonly serviceMicros: number;
  readonly toRow: number[];
  readonly rows: number;
  readonly copyRowsPerSecond: number;
}

class Harness {
  private readonly copyTable = 'bench_copy';

  constructor(
    readonly service: Service,
    private readonly db: Client,
    private readonly admin: Admin,
    private readonly actionTopics: readonly string[],
    private readonly timeoutMs: number,
    private readonly postgresPid: number | undefined,
  ) {}

  /** Stamps each projected row's insert time, so latency is measured per delta without polling. */
  async installProbe(): Promise<void> {
    await this.db.query(`create table bench_seen (key text primary key, seen_at timestamptz not null)`);
    // Rows seen per phase (the keys' prefix; phases never overlap, so a statement's rows share one), a row per
    // projector statement, for finish() to poll: a count over bench_seen scanned every earlier phase's rows too
    // (about 5 ms a poll once 60,000 were in, polled every 10 ms), which the PostgreSQL CPU of later phases counted.
    await this.db.query(`create table bench_seen_tally (prefix text not null, seen int not null)`);
    // A statement trigger over the statement's inserted rows: one set-based insert per projector statement, so
    // the probe adds little to the PostgreSQL CPU it is part of (a row trigger ran PL/pgSQL once per row).
    await this.db.query(`create function bench_seen() returns trigger language plpgsql as $$
      begin
        with added as (insert into bench_seen select n."merchantId", clock_timestamp() from inserted n on conflict do nothing returning key)
        insert into bench_seen_tally select regexp_replace(min(key), '[0-9]+$', ''), count(*) from added having count(*) > 0;
        return null;
      end $$`);
    await this.db.query(
      `create trigger bench_seen after insert on ${TABLE} referencing new table as inserted for each statement execute function bench_seen()`,
    );
    await this.db.query(`create table ${this.copyTable} (like ${TABLE})`);
  }

  cpuNow(): CpuSample {
    return sampleCpu(this.postgresPid);
  }

  async actionCount(): Promise<number[]> {
    return Promise.all(this.actionTopics.map(async (topic) => (await this.admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0)));
  }

  /** Waits until the phase's rows are all projected and both action topics grew by its count; then measures. */
  async finish(phase: Phase, started: bigint, actionsBefore: number[], cpuBefore: CpuSample): Promise<PhaseResult> {
    const deadline = Date.now() + this.timeoutMs;
    let projectedSeconds: number | undefined;
    let actionsSeconds: number | undefined;
    while (projectedSeconds === undefined || actionsSeconds === undefined) {
      if (Date.now() > deadline) throw new Error(`phase ${phase.prefix}: not fully projected and published within ${this.timeoutMs} ms`);
      if (projectedSeconds === undefined) {
        const seen = await this.db.query<{ n: string }>(`select coalesce(sum(seen), 0)::text as n from bench_seen_tally where prefix = $1`, [phase.prefix]);
        if (Number(seen.rows[0]?.n) >= phase.count) projectedSeconds = secondsSince(started);
      }
      if (actionsSeconds === undefined) {
        const now = await this.actionCount();
        if (now.every((n, i) => n - (actionsBefore[i] ?? 0) >= phase.count)) actionsSeconds = secondsSince(started);
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const cpuAfter = sampleCpu(this.postgresPid);
    const cpu = cpuPerDelta(cpuBefore, cpuAfter, phase.count, {
      cpuMicros: phase.clientCpuMicros,
      seconds: Math.max(projectedSeconds, actionsSeconds),
    });
    // _updated_at is the event's recordedAt: when the pipeline decided. It splits the latency in two.
    const seen = await this.db.query<{ key: string; ms: string; decided: string }>(
      `select s.key, (extract(epoch from s.seen_at) * 1000)::text as ms, (extract(epoch from t."_updated_at") * 1000)::text as decided
         from bench_seen s join ${TABLE} t on t."merchantId" = s.key where s.key like $1`,
      [`${phase.prefix}%`],
    );
    const sorted = (values: number[]): number[] => values.filter(Number.isFinite).sort((a, b) => a - b);
    const sent = (key: string): number => phase.sentAt.get(key) ?? Number.NaN;
    const latencies = sorted(seen.rows.map((r) => Number(r.ms) - sent(r.key)));
    const toDecision = sorted(seen.rows.map((r) => Number(r.decided) - sent(r.key)));
    const toRow = sorted(seen.rows.map((r) => Number(r.ms) - Number(r.decided)));
    const rows = await this.db.query<{ n: string }>(`select count(*)::text as n from ${TABLE} where "merchantId" like $1`, [`${phase.prefix}%`]);
    // Every delta of every phase is a valid create of a new key: a refusal means the load sent something else (a
    // paced producer once re-sent overlapping slices under new delta ids, refused as DB_CONFLICT, uncounted).
    const refused = await this.refusedSoFar();
    if (refused > 0) throw new Error(`phase ${phase.prefix}: the pipeline refused ${refused} deltas of the benchmark's load so far`);
    return {
      seconds: Math.max(projectedSeconds, actionsSeconds),
      projectedSeconds,
      actionsSeconds,
      latencies,
      toDecision,
      toRow,
      cpu,
      serviceMicros: (cpuAfter.service - cpuBefore.service) / phase.count,
      rows: Number(rows.rows[0]?.n),
      copyRowsPerSecond: await this.copyBaseline(phase.prefix),
    };
  }

  private async refusedSoFar(): Promise<number> {
    const { values } = await this.service.metrics.pipelineVerdicts.get();
    return values.filter((v) => v.labels.verdict === 'refused').reduce((sum, v) => sum + v.value, 0);
  }

  /**
   * The phase's projected rows, read back as text, then COPYed into a keyless table of the same columns: the best
   * of `COPY_TRIES`. One COPY of a phase's rows takes 20–100 ms, and a single one ranged from 88k to 376k rows/s
   * between the phases of one run (a checkpoint or the phase's last writes landing on it); the baseline is what the
   * machine allows, so the fastest try stands for it.
   */
  private async copyBaseline(prefix: string): Promise<number> {
    const columns = await this.db.query<{ name: string }>(
      `select column_name as name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
      [SCHEMA, TABLE_NAME],
    );
    const list = columns.rows.map((c) => `"${c.name.replace(/"/g, '""')}"::text`).join(', ');
    const images = await this.db.query({ text: `select ${list} from ${TABLE} where "merchantId" like $1`, values: [`${prefix}%`], rowMode: 'array' });
    const data = copyRows(images.rows as unknown[][]);
    let best = 0;
    for (let i = 0; i < COPY_TRIES; i++) {
      await this.db.query(`truncate ${this.copyTable}`);
      const started = process.hrtime.bigint();
      await copyIn(this.db, `copy ${this.copyTable} from stdin`, data);
      best = Math.max(best, images.rows.length / secondsSince(started));
    }
    return best;
  }
}

const COPY_TRIES = 3;

const ms = (n: number): string => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** Deltas produced, and HTTP writes made, before the measured phases (at most as many as the phase itself). */
const WARM_UP_DELTAS = 10_000;
const WARM_UP_HTTP_WRITES = 5_000;

export async function run(options: EndToEndOptions): Promise<Figure[]> {
  const { deltas, httpDeltas } = options;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deltabroker-bench-e2e-'));
  const database = await createBenchDatabase('bench_e2e');
  const config = benchServiceConfig(dataDir, database.url);
  const service = await startService(config, deploymentLogger(config.dataDir));
  const db = new Client({ connectionString: database.url });
  await db.connect();
  const admin = new Kafka({ clientId: 'bench-admin', brokers: service.brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const load = LoadProcess.start();
  try {
    const entity = await service.entities.get(TENANT, ENTITY);
    if (!entity) throw new Error(`no ${TENANT}/${ENTITY} configuration`);
    const actionTopics = [entity.notifications.globalTopic, `${entity.notifications.localTopicPrefix}.${config.datacenter}`];
    const harness = new Harness(service, db, admin, actionTopics, options.timeoutMs ?? 300_000, await postgresServerPid(db));
    await harness.installProbe();
    const issuer = await loadDevIssuer(config.dataDir, config.auth.issuer, config.auth.audience);
    const token = await issuer.mint({ sub: 'bench', tenant: TENANT, roles: ['writer'] });
    // A Kafka producer proves its actor with the caller's token (stage 5).
    const proof = { authorization: `Bearer ${token}` };

    const phase = (prefix: string, count: number): Phase => ({ prefix, count, sentAt: new Map(), clientCpuMicros: 0 });
    const noted = (p: Phase, times: SentTimes): void => {
      for (const [key, at] of times.sentAt) p.sentAt.set(key, at);
      p.clientCpuMicros += times.cpuMicros;
    };
    const produceDeltas = async (p: Phase, sendBatch: number, inFlight: number, perSecond?: number): Promise<void> =>
      noted(
        p,
        await load.produce({
          prefix: p.prefix,
          count: p.count,
          brokers: service.brokers,
          registryUrl: service.registryUrl,
          proof,
          sendBatch,
          inFlight,
          perSecond,
        }),
      );
    const writeOverHttp = async (p: Phase, concurrency: number): Promise<{ latencies: number[]; errors: number }> => {
      const answers = await load.writeOverHttp({ prefix: p.prefix, count: p.count, url: service.url, token, concurrency });
      noted(p, answers);
      return answers;
    };
    const timed = async (p: Phase, send: () => Promise<void>): Promise<PhaseResult> => {
      const before = await harness.actionCount();
      const cpuBefore = harness.cpuNow();
      const started = process.hrtime.bigint();
      await send();
      return harness.finish(p, started, before, cpuBefore);
    };
    // Warm-up, not timed, through both paths measured below: topics, schema ids, consumer fetch loops, pool
    // connections and table statements are in place, and V8 has compiled the hot code, before timing. With only
    // 200 deltas of warm-up, V8's compiler threads were still busy during the measured phases (about 575 optimising
    // compilations during 10,000 HTTP writes, against about 140 after 20,000 more), which the figures counted as
    // the service's CPU.
    const warm = phase('warm-', Math.min(WARM_UP_DELTAS, deltas));
    await timed(warm, () => produceDeltas(warm, options.sendBatch ?? 100, options.sendsInFlight ?? 4));
    const warmHttp = phase('warm-http-', Math.min(WARM_UP_HTTP_WRITES, httpDeltas));
    await timed(warmHttp, async () => {
      await writeOverHttp(warmHttp, options.httpConcurrency ?? 64);
    });
    const idleRss = process.memoryUsage().rss;

    const viaKafka = phase('kafka-', deltas);
    const kafka = await timed(viaKafka, () => produceDeltas(viaKafka, options.sendBatch ?? 100, options.sendsInFlight ?? 4));
    // Latency without a backlog: half the rate just measured, for about ten seconds.
    const pacedRate = Math.max(10, Math.round(deltas / kafka.seconds / 2));
    const viaKafkaPaced = phase('paced-', Math.min(Math.ceil(deltas / 2), pacedRate * 10));
    const paced = await timed(viaKafkaPaced, () => produceDeltas(viaKafkaPaced, 10, 4, pacedRate));
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
    const viaHttp = phase('http-', httpDeltas);
    let answers: { latencies: number[]; errors: number } = { latencies: [], errors: 0 };
    const overHttp = await timed(viaHttp, async () => {
      answers = await writeOverHttp(viaHttp, options.httpConcurrency ?? 64);
    });
    // A lone writer: each write waits for the one before, so nothing is batched with it.
    const lone = phase('lone-', options.loneWrites ?? 100);
    let loneAnswers: { latencies: number[]; errors: number } = { latencies: [], errors: 0 };
    await timed(lone, async () => {
      loneAnswers = await writeOverHttp(lone, 1);
    });
    // The baselines, in the load process as the writes were: GET /health from one client (the lone writer's),
    // GET /whoami from 16 (an authenticated no-op, the HTTP writes'), and the service's CPU per GET /health with 16
    // clients, the unit the rows give the service's CPU per delta in. A slower or busier host changes these about as
    // it changes the figures, where it halves a rate (the same code did 165 µs of service, PostgreSQL and producer CPU
    // per burst delta on one host, 320 on another).
    const health = await load.httpLoad({ url: `${service.url}/health`, method: 'GET', headers: {}, seconds: 2, concurrency: 1 });
    const whoami = await load.httpLoad({ url: `${service.url}/whoami`, method: 'GET', headers: proof, seconds: 3, concurrency: 16 });
    const healthCpuBefore = process.cpuUsage();
    const healthLoad = await load.httpLoad({ url: `${service.url}/health`, method: 'GET', headers: {}, seconds: 3, concurrency: 16 });
    const healthCpu = process.cpuUsage(healthCpuBefore);
    const healthMicros = (healthCpu.user + healthCpu.system) / Math.max(1, healthLoad.requests);
    const peakRss = process.resourceUsage().maxRSS * 1024;

    const lat = (r: PhaseResult): string =>
      `publish→projected p50 ${ms(quantile(r.latencies, 0.5))} p99 ${ms(quantile(r.latencies, 0.99))} ` +
      `(publish→decided p50 ${ms(quantile(r.toDecision, 0.5))}, decided→row p50 ${ms(quantile(r.toRow, 0.5))}); ${r.cpu}; ` +
      `service CPU per delta ${(r.serviceMicros / healthMicros).toFixed(1)} × its CPU per GET /health (${healthMicros.toFixed(1)} µs, 16 clients)`;
    const done = (r: PhaseResult, n: number): string =>
      `${r.rows}/${n} rows; projected at ${r.projectedSeconds.toFixed(1)} s, actions at ${r.actionsSeconds.toFixed(1)} s`;
    const copy = (r: PhaseResult) => ({ name: 'raw COPY of the same rows, best of 3', value: r.copyRowsPerSecond, unit: 'rows/s' });
    const healthCpuBaseline = { name: 'service CPU per GET /health, 16 clients', value: healthMicros, unit: 'µs' };
    const serviceCpu = (name: string, r: PhaseResult, atMost: number): Figure => ({
      name,
      value: r.serviceMicros,
      unit: 'µs',
      baseline: healthCpuBaseline,
      target: { on: 'ratio', atMost },
      notes: r.cpu,
    });
    return [
      {
        name: `e2e: kafkajs producer → persisted+projected+actions (${deltas})`,
        value: deltas / kafka.seconds,
        unit: 'deltas/s',
        baseline: copy(kafka),
        notes: `${lat(kafka)}; ${done(kafka, deltas)}`,
      },
      {
        name: `e2e: kafkajs producer paced at half that rate (${viaKafkaPaced.count})`,
        value: viaKafkaPaced.count / paced.seconds,
        unit: 'deltas/s',
        baseline: copy(paced),
        notes: `${lat(paced)}; offered ${pacedRate}/s; ${done(paced, viaKafkaPaced.count)}`,
      },
      ...(kcat
        ? [
            {
              name: `e2e: librdkafka (kcat) producer → persisted+projected+actions (${deltas})`,
              value: deltas / kcat.seconds,
              unit: 'deltas/s',
              baseline: copy(kcat),
              target: { on: 'ratio', atLeast: 0.045 },
              notes:
                `${lat(kcat)}; ${done(kcat, deltas)}; values Avro-encoded before the clock (the kafkajs row encodes while timed); ` +
                `every delta's publish time is kcat's start, as kcat reports no per-record send time`,
            } satisfies Figure,
            serviceCpu('e2e: the librdkafka burst, service CPU per delta', kcat, 1.5),
          ]
        : []),
      {
        name: `e2e: HTTP POST / (${options.httpConcurrency ?? 64} clients) → projected+actions (${httpDeltas})`,
        value: httpDeltas / overHttp.seconds,
        unit: 'deltas/s',
        baseline: { name: 'GET /whoami, 16 clients', value: whoami.perSecond, unit: 'req/s' },
        target: { on: 'ratio', atLeast: 0.4 },
        notes:
          `${lat(overHttp)}; HTTP answer p50 ${ms(quantile(answers.latencies, 0.5))} p99 ${ms(quantile(answers.latencies, 0.99))}, ${answers.errors} errors; ` +
          `${done(overHttp, httpDeltas)}; ${(httpDeltas / overHttp.seconds / overHttp.copyRowsPerSecond).toFixed(4)} of COPY (${Math.round(overHttp.copyRowsPerSecond)} rows/s)`,
      },
      {
        name: `e2e: HTTP POST / (${options.httpConcurrency ?? 64} clients), answer p99`,
        value: quantile(answers.latencies, 0.99),
        unit: 'ms',
        baseline: { name: 'GET /whoami p99, 16 clients', value: whoami.p99Ms, unit: 'ms' },
        target: { on: 'value', atMost: 60 },
      },
      serviceCpu('e2e: HTTP POST /, service CPU per write', overHttp, 6),
      {
        name: `e2e: a lone HTTP writer (1 client, ${lone.count} creates), answers/s`,
        value: 1000 / quantile(loneAnswers.latencies, 0.5),
        unit: 'writes/s',
        baseline: { name: 'GET /health, 1 client', value: health.perSecond, unit: 'req/s' },
        target: { on: 'ratio', atLeast: 0.07 },
        notes: `HTTP answer p50 ${ms(quantile(loneAnswers.latencies, 0.5))} p99 ${ms(quantile(loneAnswers.latencies, 0.99))}, ${loneAnswers.errors} errors`,
      },
      {
        name: 'e2e: a lone HTTP writer, answer p50',
        value: quantile(loneAnswers.latencies, 0.5),
        unit: 'ms',
        baseline: { name: 'GET /health p50, 1 client', value: health.p50Ms, unit: 'ms' },
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
    load.stop();
    await admin.disconnect().catch(() => undefined);
    await db.end().catch(() => undefined);
    await service.stop();
    await database.drop();
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
