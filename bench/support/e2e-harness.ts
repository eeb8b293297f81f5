import { logLevel, type Admin } from 'kafkajs';
import { kafkaClient } from '../../src/log/kafka/kafka-client'; // as the service's clients: without kafkajs's 1 ms timer loop
import { Client } from 'pg';
import { loadDevIssuer } from '../../src/auth/dev-issuer';
import { startService, type Service } from '../../src/composition';
import type { Config } from '../../src/config';
import { bestCopySeconds, copyRows } from './copy';
import { cpuPerDelta, postgresServerPid, sampleCpu, type CpuSample } from './cpu-time';
import { createBenchDatabase, type BenchDatabase } from './database';
import { secondsSince } from './figures';
import { ENTITY, TENANT, type SentTimes } from './load-clients';
import { LoadProcess } from './load-process';
import { deploymentLogger } from './service-log';

/**
 * What the end-to-end benchmarks share (end-to-end.ts on the embedded broker, end-to-end-kafka.ts on Kafka 4): a
 * service with a benchmark database, its load process, and a harness that times a phase of creates until every one
 * is projected and on both action topics.
 */
/** The projection table of acme/merchant_account, in acme's schema (src/tenant/physical-names.ts). */
const [SCHEMA, TABLE_NAME] = ['tenant_acme', 'merchant_account'];
const TABLE = `${SCHEMA}.${TABLE_NAME}`;

export interface Phase {
  readonly prefix: string;
  readonly count: number;
  /** Wall-clock ms at which each key's delta was handed to the producer or HTTP client. */
  readonly sentAt: Map<string, number>;
  /** CPU the client process spent on the phase, µs. */
  clientCpuMicros: number;
}

export interface PhaseResult {
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

export class Harness {
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

  /** The phase's projected rows, read back as text, then COPYed into a keyless table of the same columns: the best of 3. */
  private async copyBaseline(prefix: string): Promise<number> {
    const columns = await this.db.query<{ name: string }>(
      `select column_name as name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
      [SCHEMA, TABLE_NAME],
    );
    const list = columns.rows.map((c) => `"${c.name.replace(/"/g, '""')}"::text`).join(', ');
    const images = await this.db.query({ text: `select ${list} from ${TABLE} where "merchantId" like $1`, values: [`${prefix}%`], rowMode: 'array' });
    return images.rows.length / (await bestCopySeconds(this.db, this.copyTable, copyRows(images.rows as unknown[][])));
  }
}

export const ms = (n: number): string => `${n.toFixed(n < 10 ? 1 : 0)} ms`;

/** A phase's baseline: the best COPY of its projected rows. */
export const copyBaseline = (r: PhaseResult) => ({ name: 'raw COPY of the same rows, best of 3', value: r.copyRowsPerSecond, unit: 'rows/s' });

/** How many of a phase's `n` deltas were projected, and when it was projected and published. */
export const completion = (r: PhaseResult, n: number): string =>
  `${r.rows}/${n} rows; projected at ${r.projectedSeconds.toFixed(1)} s, actions at ${r.actionsSeconds.toFixed(1)} s`;

export interface E2eBench {
  readonly service: Service;
  readonly config: Config;
  readonly harness: Harness;
  readonly load: LoadProcess;
  /** The Kafka producer's proof of its actor (stage 5): a writer's token. */
  readonly proof: { authorization: string };
  readonly token: string;
  phase(prefix: string, count: number): Phase;
  /** Runs `send`, then waits until the phase is projected and published, and measures it. */
  timed(p: Phase, send: () => Promise<void>): Promise<PhaseResult>;
  /** Creates produced by kafkajs in the load process, their send times noted in the phase. */
  produce(p: Phase, sendBatch: number, inFlight: number, perSecond?: number): Promise<void>;
  /** Records a client's send times and CPU in the phase. */
  noted(p: Phase, times: SentTimes): void;
  close(): Promise<void>;
}

/** Starts a service on `config(database url)` with a fresh benchmark database, its load process and the harness. */
export async function openE2eBench(config: (databaseUrl: string) => Config, timeoutMs = 300_000): Promise<E2eBench> {
  const database: BenchDatabase = await createBenchDatabase('bench_e2e');
  const serviceConfig = config(database.url);
  const service = await startService(serviceConfig, deploymentLogger(serviceConfig.dataDir));
  const db = new Client({ connectionString: database.url });
  await db.connect();
  const admin = kafkaClient({ clientId: 'bench-admin', brokers: service.brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const load = LoadProcess.start();
  const close = async (): Promise<void> => {
    load.stop();
    await admin.disconnect().catch(() => undefined);
    await db.end().catch(() => undefined);
    await service.stop();
    await database.drop();
  };
  try {
    const entity = await service.entities.get(TENANT, ENTITY);
    if (!entity) throw new Error(`no ${TENANT}/${ENTITY} configuration`);
    const actionTopics = [entity.notifications.globalTopic, `${entity.notifications.localTopicPrefix}.${serviceConfig.datacenter}`];
    const harness = new Harness(service, db, admin, actionTopics, timeoutMs, await postgresServerPid(db));
    await harness.installProbe();
    const issuer = await loadDevIssuer(serviceConfig.dataDir, serviceConfig.auth.issuer, serviceConfig.auth.audience);
    const token = await issuer.mint({ sub: 'bench', tenant: TENANT, roles: ['writer'] });
    const proof = { authorization: `Bearer ${token}` };
    const noted = (p: Phase, times: SentTimes): void => {
      for (const [key, at] of times.sentAt) p.sentAt.set(key, at);
      p.clientCpuMicros += times.cpuMicros;
    };
    return {
      service,
      config: serviceConfig,
      harness,
      load,
      proof,
      token,
      phase: (prefix, count) => ({ prefix, count, sentAt: new Map(), clientCpuMicros: 0 }),
      async timed(p, send) {
        const before = await harness.actionCount();
        const cpuBefore = harness.cpuNow();
        const started = process.hrtime.bigint();
        await send();
        return harness.finish(p, started, before, cpuBefore);
      },
      async produce(p, sendBatch, inFlight, perSecond) {
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
      },
      noted,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
