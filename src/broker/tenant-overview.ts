import { PIPELINE_GROUPS, PIPELINE_TOPICS } from '../log/topology';
import type { WriteLog } from '../log';
import type { LagSource } from '../observability';
import type { PartitionLag } from '../observability/lag';
import type { EntityConfigSource, EntityListing } from '../tenant';
import type { RejectionService } from './rejections';

export interface EntityCounts {
  readonly entity: string;
  /** Events on the entity's persistence topic: every accepted delta, since the topic began. */
  readonly accepted: number;
  /** Refused deltas of the entity on the rejections topic. */
  readonly refused: number;
}

/** Records a consumer has yet to read on one partition of one of the tenant's persistence topics. */
export interface PartitionLagView {
  /** A consumer group's committed offset (emitters, projectors), or a projector's checkpoint in the store. */
  readonly kind: 'group' | 'checkpoint';
  readonly consumer: string;
  readonly topic: string;
  readonly partition: number;
  readonly lag: number;
}

export interface TenantOverview {
  /** When the counts were read (ISO 8601): the console turns two readings into rates. */
  readonly at: string;
  readonly entities: readonly EntityCounts[];
  /**
   * Deltas the pipeline has not decided yet, of every tenant: the deltas topic is shared, so this is the queue the
   * tenant's own deltas wait in (a number, naming nobody).
   */
  readonly pipelineLag: number;
  /** Each projector's and emitter's lag on the tenant's persistence topics, per partition. */
  readonly lag: readonly PartitionLagView[];
}

export interface TenantOverviewDeps {
  readonly entities: Pick<EntityConfigSource, 'list'>;
  readonly log: Pick<WriteLog, 'topicOffsets'>;
  readonly rejections: Pick<RejectionService, 'list'>;
  /** The lag the metrics report: asked on each overview, like a scrape. */
  readonly lag: LagSource;
}

/**
 * One tenant's accepted and refused deltas per entity, read from the log (persistence topics' end offsets and the
 * rejections topic) when asked: counting them on the write path would cost every delta for a page few open.
 */
export class TenantOverviewService {
  constructor(private readonly deps: TenantOverviewDeps) {}

  /** The tenant's entity configurations as the service validated them, and the refused ones with why. */
  async configurations(tenant: string): Promise<EntityListing> {
    return this.deps.entities.list(tenant);
  }

  async counts(tenant: string): Promise<TenantOverview> {
    const [{ configs }, lag] = await Promise.all([this.deps.entities.list(tenant), this.deps.lag()]);
    const topics = new Set(configs.map((c) => c.persistence.topic));
    const entities = await Promise.all(
      configs.map(async (config) => {
        const [offsets, refused] = await Promise.all([
          this.deps.log.topicOffsets(config.persistence.topic),
          this.deps.rejections.list({ tenant, entity: config.entity }, 1),
        ]);
        const accepted = offsets.reduce((sum, p) => sum + Number(p.high), 0);
        return { entity: config.entity, accepted, refused: refused.total };
      }),
    );
    const pipelineLag = lag.consumer
      .filter((p) => p.group === PIPELINE_GROUPS.pipeline && p.topic === PIPELINE_TOPICS.deltas)
      .reduce((sum, p) => sum + p.lag, 0);
    const view = (kind: PartitionLagView['kind']) => (p: PartitionLag) => ({ kind, consumer: p.group, topic: p.topic, partition: p.partition, lag: p.lag });
    const partitions = [
      ...lag.consumer.filter((p) => topics.has(p.topic)).map(view('group')),
      ...lag.projection.filter((p) => topics.has(p.topic)).map(view('checkpoint')),
    ];
    return { at: new Date().toISOString(), entities, pipelineLag, lag: partitions };
  }
}
