/** The pipeline's own topics. Persistence and action topics come from each entity's configuration. */
export const PIPELINE_TOPICS = {
  /** DeltaEnvelopes from HTTP and from any Kafka producer. Key: `<tenant>/<entity>/<key>`. */
  deltas: 'deltas',
  /** Rejection records: refused deltas and undecodable bytes. */
  rejections: 'rejections',
  /** DeltaOutcome records, so a waiting HTTP caller learns the verdict from whichever instance decided. */
  outcomes: 'deltabroker.outcomes',
} as const;

/** Consumer groups. The local emitter group is per datacenter; see projections/action-emitter.ts. */
export const PIPELINE_GROUPS = {
  pipeline: 'deltabroker-pipeline',
  globalEmitter: 'deltabroker-emitter-global',
  localEmitter: (datacenter: string) => `deltabroker-emitter-local-${datacenter}`,
} as const;

/** The message key of every record about one entity record: same key, same partition, kept in order. */
export const recordMessageKey = (tenant: string, entity: string, key: string): string => `${tenant}/${entity}/${key}`;
