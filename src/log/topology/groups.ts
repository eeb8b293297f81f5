/**
 * The service's consumer groups. Every one starts with SERVICE_GROUP_PREFIX (service-resources.ts), which is how
 * the embedded broker tells the service's groups from other clients'.
 */
import { SERVICE_GROUP_PREFIX } from './service-resources';

/** The pipeline and the action emitters. The local emitter group is per datacenter; see projections/action-emitter.ts. */
export const PIPELINE_GROUPS = {
  pipeline: 'deltabroker-pipeline',
  globalEmitter: 'deltabroker-emitter-global',
  localEmitter: (datacenter: string) => `deltabroker-emitter-local-${datacenter}`,
} as const;

/** The table projector's group, also the name of its checkpoints. */
export const TABLE_PROJECTOR_GROUP = 'deltabroker-projector-postgres';

/** The search projector's group, also the name of its checkpoints. */
export const SEARCH_PROJECTOR_GROUP = 'deltabroker-projector-search';

/** The consumers of SubjectErased records, one group each (projections/subjects/erasure-consumers.ts). */
export const SUBJECT_ERASURE_GROUPS = {
  table: 'deltabroker-subjects-table',
  search: 'deltabroker-subjects-search',
  emitter: 'deltabroker-subjects-emitter',
} as const;

/** The counter of rejections by stage and reason (src/observability/rejection-metrics.ts). */
export const REJECTION_METRICS_GROUP = 'deltabroker-rejection-metrics';

/** Each instance reads every outcome, so each has a group of its own. */
export const outcomeWaiterGroup = (instanceId: string): string => `deltabroker-outcomes-${instanceId}`;

/** The prefix of a replay's temporary groups (`<prefix>-<topic>-<uuid>`) in the kafkajs adapter, unless told another. */
export const REPLAY_GROUP_PREFIX = 'deltabroker-replay';

/**
 * Whether a group of the service outlives an instance: all but an instance's outcome group and a replay's temporary
 * group. The embedded broker never expires their offsets (the service rejoins them whenever it runs, however long it
 * was stopped); the short-lived ones expire like any client's once nobody is in them, so stopped instances and
 * interrupted replays leave nothing behind.
 */
export const isLastingServiceGroup = (group: string): boolean =>
  group.startsWith(SERVICE_GROUP_PREFIX) && !group.startsWith(outcomeWaiterGroup('')) && !group.startsWith(`${REPLAY_GROUP_PREFIX}-`);
