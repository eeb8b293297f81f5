/**
 * Counts the records on the rejections topic by stage and code: refusals of every pipeline stage and records
 * that could not be decoded, whichever instance made them. The instances share one consumer group, so each
 * rejection is counted by one of them (sum over instances); a batch redelivered after a crash counts again.
 */
import { ERROR_CATALOGUE } from '../errors';
import { DECODE_REASONS, type RecordSchemas, type Rejection, type Subscription, type WriteLog } from '../log';
import { DECODE_STAGE, REJECTION_METRICS_GROUP, STAGES, PIPELINE_TOPICS } from '../log/topology';
import type { ServiceMetrics } from './metrics';

// Any Kafka client can write to the topic: values outside these sets share one label, so they cannot grow the series.
const KNOWN_STAGES = new Set<string>([...Object.values(STAGES), DECODE_STAGE, 'pipeline']);
const KNOWN_CODES = new Set<string>([...Object.keys(ERROR_CATALOGUE), ...Object.keys(DECODE_REASONS)]);

export const rejectionLabels = (r: Pick<Rejection, 'stage' | 'reason'>): { stage: string; code: string } => ({
  stage: KNOWN_STAGES.has(r.stage) ? r.stage : 'other',
  code: KNOWN_CODES.has(r.reason) ? r.reason : 'other',
});

export async function countRejections(log: WriteLog, schemas: RecordSchemas, metrics: ServiceMetrics): Promise<Subscription> {
  const subscription = await log.subscribe<Rejection>({
    groupId: REJECTION_METRICS_GROUP,
    topics: [PIPELINE_TOPICS.rejections],
    start: 'latest',
    readerSchema: schemas.Rejection,
    partitionsConsumedConcurrently: 3,
    handleBatch: async (batch) => {
      for (const { value } of batch.records) metrics.rejections.inc(rejectionLabels(value));
    },
  });
  await subscription.joined;
  return subscription;
}
