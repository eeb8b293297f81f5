import { ErrorCode } from '../../protocol/errors';
import type { OffsetCommitEntry } from '../../group/offset-store';
import type { ApiHandler } from '../types';
import type { OffsetCommitRequest, OffsetCommitResponse } from './codec';

/**
 * Checks in Kafka's order (KafkaApis before the coordinator): group authorization, then whether each
 * partition exists, then member and generation for the partitions that do; stores the offsets and answers
 * once they are durable. An unknown topic is UNKNOWN_TOPIC_OR_PARTITION whatever the member fields say.
 */
export const handleOffsetCommit: ApiHandler<OffsetCommitRequest, OffsetCommitResponse> = async (broker, req, ctx) => {
  const verdict = broker.authorizer.group(ctx.session.principal, 'commit', req.groupId);
  let groupError: number | undefined;
  // Asked only when some partition exists: Kafka's coordinator never sees a commit of unknown topics only.
  const memberCheck = (): number => (groupError ??= req.groupId ? broker.groups.commitAllowed(req) : ErrorCode.INVALID_GROUP_ID);
  const entries: OffsetCommitEntry[] = [];
  const topics = req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => {
      let errorCode: number = verdict.errorCode;
      if (errorCode === ErrorCode.NONE && !broker.logs.partition(t.name, p.partitionIndex)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      if (errorCode === ErrorCode.NONE) errorCode = memberCheck();
      if (errorCode === ErrorCode.NONE) {
        entries.push({
          topic: t.name,
          partition: p.partitionIndex,
          offset: p.committedOffset,
          leaderEpoch: p.committedLeaderEpoch,
          metadata: p.committedMetadata,
          commitTimestamp: Date.now(),
        });
      }
      return { partitionIndex: p.partitionIndex, errorCode };
    }),
  }));
  try {
    await broker.groups.commitOffsets(req.groupId, entries);
  } catch (err) {
    broker.logger.error({ err, group: req.groupId }, 'storing committed offsets failed');
    for (const t of topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE) p.errorCode = ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
  return { throttleTimeMs: 0, topics };
};
