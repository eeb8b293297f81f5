/**
 * Topics of the write log with their watermarks and the lag of the groups that read them: what
 * `deltabroker topics list|describe` prints and the console's topics view shows, one implementation for both.
 */
import { DeltabrokerError } from '../errors';
import type { ClusterAdmin, TopicOffsets } from '../log';
import { consumerLag, persistenceTopics, serviceGroups, type PartitionLag } from '../observability';
import type { EntityConfigSource } from '../tenant';

export interface TopicSummary {
  readonly topic: string;
  readonly partitions: number;
  /** Sum over partitions of the end offset (high watermark): records ever written. */
  readonly endOffset: string;
  /** Sum over partitions of high minus low: records still in the log. */
  readonly records: string;
  readonly endOffsets: readonly TopicOffsets[];
}

export interface TopicDescription {
  readonly topic: string;
  readonly partitions: readonly TopicOffsets[];
  /** Lag of each group that committed on this topic, per partition (and of every group asked for by name). */
  readonly groups: readonly PartitionLag[];
}

/**
 * Which topics a caller sees: the whole cluster (the CLI on the service's machine, the service role `operator`),
 * or one tenant's persistence topics (its `admin`), whose names no other tenant may claim.
 */
export type TopicScope = { readonly kind: 'cluster' } | { readonly kind: 'tenant'; readonly tenant: string };

export interface LogTopicsDeps {
  readonly admin: Pick<ClusterAdmin, 'listTopics' | 'topicOffsets' | 'committedOffsets' | 'listGroups'>;
  /** The service's groups are named per datacenter (the local emitter). */
  readonly datacenter: string;
  /** A tenant's topics; absent where only the cluster scope is used (the CLI). */
  readonly entities?: Pick<EntityConfigSource, 'list'>;
}

const sum = (values: readonly bigint[]): string => values.reduce((a, b) => a + b, 0n).toString();

export class LogTopicsService {
  constructor(private readonly deps: LogTopicsDeps) {}

  /** The topics `scope` sees that exist, sorted. */
  async visibleTopics(scope: TopicScope): Promise<string[]> {
    const existing = await this.deps.admin.listTopics();
    if (scope.kind === 'cluster') return existing;
    if (!this.deps.entities) throw new DeltabrokerError('DB_INTERNAL', 'tenant topics need the entity configurations', { stage: 'topics' });
    const own = new Set(persistenceTopics((await this.deps.entities.list(scope.tenant)).configs));
    return existing.filter((topic) => own.has(topic));
  }

  async list(scope: TopicScope): Promise<TopicSummary[]> {
    return Promise.all(
      (await this.visibleTopics(scope)).map(async (topic) => {
        const endOffsets = await this.deps.admin.topicOffsets(topic);
        return {
          topic,
          partitions: endOffsets.length,
          endOffset: sum(endOffsets.map((p) => BigInt(p.high))),
          records: sum(endOffsets.map((p) => BigInt(p.high) - BigInt(p.low))),
          endOffsets,
        };
      }),
    );
  }

  /**
   * Partitions and watermarks of one topic, and the lag of every group that committed on it (the service's own and
   * every other group the cluster lists, a tenant's own consumers among them) and of `extraGroups`. A group
   * that never committed on the topic is left out unless named. A topic outside `scope` answers as one that does
   * not exist, so a tenant learns nothing of another's names; the groups shown are those reading its own topic.
   */
  async describe(scope: TopicScope, topic: string, extraGroups: readonly string[] = []): Promise<TopicDescription> {
    await this.requireVisible(scope, topic);
    const partitions = await this.deps.admin.topicOffsets(topic);
    const known = serviceGroups(this.deps.datacenter, []).map((g) => g.group);
    const listed = (await this.deps.admin.listGroups()).map((g) => g.groupId);
    const groups = [...new Set([...known, ...listed, ...extraGroups])].map((group) => ({ group, topics: [topic] }));
    const lags = await consumerLag(this.deps.admin, groups, new Map([[topic, [...partitions]]]));
    const active = new Set(lags.filter((l) => l.committed !== null).map((l) => l.group));
    return { topic, partitions, groups: lags.filter((l) => active.has(l.group) || extraGroups.includes(l.group)) };
  }

  /** DB_NOT_FOUND unless `scope` sees `topic`. */
  async requireVisible(scope: TopicScope, topic: string): Promise<void> {
    if (!(await this.visibleTopics(scope)).includes(topic)) {
      throw new DeltabrokerError('DB_NOT_FOUND', `no topic '${topic}'; see deltabroker topics list`, { field: 'topic', stage: 'topics' });
    }
  }
}
