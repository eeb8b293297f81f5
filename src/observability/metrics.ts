/**
 * Every Prometheus metric the service exposes, by name, in one place. Names carry the `deltabroker_` prefix
 * and their unit; the default process and Node.js metrics keep their standard names so stock dashboards work.
 * Each service instance owns its registry (tests run several instances in one process).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PartitionLag } from './lag';

export const METRIC_NAMES = {
  httpRequests: 'deltabroker_http_requests_total',
  httpRequestDuration: 'deltabroker_http_request_duration_seconds',
  pipelineVerdicts: 'deltabroker_pipeline_verdicts_total',
  rejections: 'deltabroker_rejections_total',
  consumerLag: 'deltabroker_consumer_lag_records',
  projectionLag: 'deltabroker_projection_lag_records',
  projectionRecordsApplied: 'deltabroker_projection_records_applied_total',
  lagCollectionFailures: 'deltabroker_lag_collection_failures_total',
  partitionsStopped: 'deltabroker_partitions_stopped_total',
  cryptoDuration: 'deltabroker_crypto_operation_duration_seconds',
  entityConfigsRefused: 'deltabroker_refused_entity_configs',
} as const;

/** Consumer and projection lag as of one look at the log and the checkpoints. */
export interface LagSnapshot {
  readonly consumer: readonly PartitionLag[];
  readonly projection: readonly PartitionLag[];
}

export type LagSource = () => Promise<LagSnapshot>;

export interface ServiceMetricsOptions {
  /** Consulted on each scrape (scrapes at the same time share one look-up); without it the lag gauges stay empty. */
  readonly lag?: LagSource;
  /** A scrape waits this long for lag, then reports none and counts a failure (default 2000). */
  readonly lagTimeoutMs?: number;
  /** Told why lag could not be collected. */
  readonly onLagFailure?: (error: unknown) => void;
  /** Process and Node.js runtime metrics (default true). */
  readonly defaultMetrics?: boolean;
  /** The entity configurations refused now (code and rule of each), read on each scrape. */
  readonly refusedEntityConfigs?: () => readonly { readonly code: string; readonly rule: string }[];
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const CRYPTO_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'route' | 'method' | 'status'>;
  readonly httpRequestDuration: Histogram<'route' | 'method' | 'status'>;
  /** Pipeline verdicts: `verdict` accepted or refused; `stage` and `code` of a refusal (empty when accepted). */
  readonly pipelineVerdicts: Counter<'verdict' | 'stage' | 'code'>;
  /** Records on the rejections topic by stage and code, decode rejections included. */
  readonly rejections: Counter<'stage' | 'code'>;
  readonly consumerLag: Gauge<'group' | 'topic' | 'partition'>;
  readonly projectionLag: Gauge<'projector' | 'topic' | 'partition'>;
  readonly projectionRecordsApplied: Counter<'projector'>;
  readonly lagCollectionFailures: Counter;
  /** Counts each partition a projector or emitter stopped (once) because the log lost its position (DB_TOPIC_RECREATED). */
  readonly partitionsStopped: Counter<'consumer' | 'topic' | 'partition'>;
  /** Successful crypto operations by operation and explicit method. */
  readonly cryptoDuration: Histogram<'operation' | 'method'>;
  /** Entities whose configuration is refused now, by the refusal's code and rule (names are in the CLI and the log). */
  readonly entityConfigsRefused: Gauge<'code' | 'rule'>;
  private lagInFlight: Promise<void> | undefined;

  constructor(private readonly options: ServiceMetricsOptions = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: METRIC_NAMES.httpRequests,
      help: 'HTTP requests answered, by route template, method and status',
      labelNames: ['route', 'method', 'status'],
      registers,
    });
    this.httpRequestDuration = new Histogram({
      name: METRIC_NAMES.httpRequestDuration,
      help: 'Time from receiving an HTTP request to sending its answer',
      labelNames: ['route', 'method', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.pipelineVerdicts = new Counter({
      name: METRIC_NAMES.pipelineVerdicts,
      help: 'Verdicts the write pipeline published, by verdict and, for refusals, the refusing stage and error code',
      labelNames: ['verdict', 'stage', 'code'],
      registers,
    });
    this.rejections = new Counter({
      name: METRIC_NAMES.rejections,
      help: 'Records on the rejections topic (refused deltas and undecodable records), by stage and code',
      labelNames: ['stage', 'code'],
      registers,
    });
    this.consumerLag = new Gauge({
      name: METRIC_NAMES.consumerLag,
      help: 'Records between a consumer group committed offset and the high watermark, per topic partition',
      labelNames: ['group', 'topic', 'partition'],
      registers,
    });
    this.projectionLag = new Gauge({
      name: METRIC_NAMES.projectionLag,
      help: 'Records between a projector stored checkpoint and the high watermark, per topic partition',
      labelNames: ['projector', 'topic', 'partition'],
      registers,
    });
    this.projectionRecordsApplied = new Counter({
      name: METRIC_NAMES.projectionRecordsApplied,
      help: 'Records a projector applied (redeliveries excluded)',
      labelNames: ['projector'],
      registers,
    });
    this.lagCollectionFailures = new Counter({
      name: METRIC_NAMES.lagCollectionFailures,
      help: 'Scrapes that could not look up consumer or projection lag',
      registers,
    });
    this.partitionsStopped = new Counter({
      name: METRIC_NAMES.partitionsStopped,
      help: 'Partitions a projector or action emitter stopped (once each) because the log no longer holds its position (topic deleted and created again)',
      labelNames: ['consumer', 'topic', 'partition'],
      registers,
    });
    this.cryptoDuration = new Histogram({
      name: METRIC_NAMES.cryptoDuration,
      help: 'Time of successful encryption service operations, by operation and explicit method',
      labelNames: ['operation', 'method'],
      buckets: CRYPTO_BUCKETS,
      registers,
    });
    const refused = options.refusedEntityConfigs;
    this.entityConfigsRefused = new Gauge({
      name: METRIC_NAMES.entityConfigsRefused,
      help: 'Entities whose configuration is refused (they answer DB_ENTITY_CONFIG_INVALID or DB_CONFLICT while every other entity serves), by code and rule',
      labelNames: ['code', 'rule'],
      registers,
      // Counted afresh on each scrape, so a fixed configuration leaves no series behind.
      collect: () => {
        if (!refused) return;
        this.entityConfigsRefused.reset();
        for (const { code, rule } of refused()) this.entityConfigsRefused.inc({ code, rule });
      },
    });
  }

  /** The Prometheus text exposition of every metric, with lag looked up afresh. */
  async exposition(): Promise<string> {
    await this.refreshLag();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Sets the lag gauges from one look-up; on failure they are left empty rather than stale. */
  private refreshLag(): Promise<void> {
    const source = this.options.lag;
    if (!source) return Promise.resolve();
    this.lagInFlight ??= withTimeout(source(), this.options.lagTimeoutMs ?? 2000)
      .then(
        (snapshot) => {
          this.consumerLag.reset();
          this.projectionLag.reset();
          for (const l of snapshot.consumer) this.consumerLag.set({ group: l.group, topic: l.topic, partition: String(l.partition) }, l.lag);
          for (const l of snapshot.projection) this.projectionLag.set({ projector: l.group, topic: l.topic, partition: String(l.partition) }, l.lag);
        },
        (error: unknown) => {
          this.consumerLag.reset();
          this.projectionLag.reset();
          this.lagCollectionFailures.inc();
          this.options.onLagFailure?.(error);
        },
      )
      .finally(() => {
        this.lagInFlight = undefined;
      });
    return this.lagInFlight;
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
