/** The pipeline's own topics. Persistence and action topics come from each entity's configuration. */
export const PIPELINE_TOPICS = {
  /** DeltaEnvelopes from HTTP and from any Kafka producer. Key: `<tenant>/<entity>/<key>`. */
  deltas: 'deltas',
  /** Rejection records: refused deltas and undecodable bytes. */
  rejections: 'rejections',
  /** DeltaOutcome records, so a waiting HTTP caller learns the verdict from whichever instance decided. */
  outcomes: 'deltabroker.outcomes',
} as const;

/** The message key of every record about one entity record: same key, same partition, kept in order. */
export const recordMessageKey = (tenant: string, entity: string, key: string): string => `${tenant}/${entity}/${key}`;

/**
 * How every persistence topic is created, by whichever component meets it first: the log is the source of
 * truth, so its events are kept forever (a default retention would silently drop history replay needs).
 */
export const persistenceTopicSpec = (topic: string) => ({ topic, partitions: 3, config: { 'retention.ms': '-1' } });

interface TopicsOfEntity {
  persistence: { topic: string };
  notifications: { globalTopic: string; localTopicPrefix: string };
}

/**
 * A persistence topic the pipeline itself reads or writes (deltas, rejections, outcomes, the entity's own action
 * topics) would loop events back into the pipeline or mix them with notifications: such a configuration is
 * refused at stage 4 and never consumed by the projectors.
 */
export function hasReservedPersistenceTopic(config: TopicsOfEntity): boolean {
  const topic = config.persistence.topic;
  const { globalTopic, localTopicPrefix } = config.notifications;
  return (Object.values(PIPELINE_TOPICS) as string[]).includes(topic) || topic === globalTopic || topic.startsWith(`${localTopicPrefix}.`);
}

/** The distinct persistence topics of some entity configurations, leaving out reserved ones. */
export const persistenceTopicsOf = (configs: readonly TopicsOfEntity[]): string[] => [
  ...new Set(configs.filter((c) => !hasReservedPersistenceTopic(c)).map((c) => c.persistence.topic)),
];
