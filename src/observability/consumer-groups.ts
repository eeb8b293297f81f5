/**
 * The consumer groups this service runs and the topics each reads, so lag can be reported per group without
 * a ListGroups call (the embedded broker has none). Persistence topics come from the entity configuration.
 */
import type { EntityConfig } from '../tenant';
import { PIPELINE_GROUPS, PIPELINE_TOPICS, TABLE_PROJECTOR_GROUP, SEARCH_PROJECTOR_GROUP, REJECTION_METRICS_GROUP } from '../log/topology';

export interface GroupTopics {
  readonly group: string;
  readonly topics: readonly string[];
}

/** Projectors that keep their own checkpoints in `projection_checkpoints` (named like their groups). */
export const PROJECTORS = [TABLE_PROJECTOR_GROUP, SEARCH_PROJECTOR_GROUP] as const;

/** The persistence topics of `configs`, sorted, without repeats. */
export const persistenceTopics = (configs: readonly EntityConfig[]): string[] => [...new Set(configs.map((c) => c.persistence.topic))].sort();

/**
 * The groups of one instance in `datacenter`: the pipeline on `deltas`, the projectors on every persistence
 * topic, the action emitters on those of entities with notification methods (as they subscribe), and the
 * rejection counter on the rejections topic.
 */
export function serviceGroups(datacenter: string, configs: readonly EntityConfig[]): GroupTopics[] {
  const persistence = persistenceTopics(configs);
  const notifying = persistenceTopics(configs.filter((c) => c.notifications.methods.length > 0));
  return [
    { group: PIPELINE_GROUPS.pipeline, topics: [PIPELINE_TOPICS.deltas] },
    ...PROJECTORS.map((group) => ({ group, topics: persistence })),
    { group: PIPELINE_GROUPS.globalEmitter, topics: notifying },
    { group: PIPELINE_GROUPS.localEmitter(datacenter), topics: notifying },
    { group: REJECTION_METRICS_GROUP, topics: [PIPELINE_TOPICS.rejections] },
  ];
}
