import { ErrorCode } from '../../protocol/errors';
import type { OffsetCommitEntry } from '../../group/offset-store';
import type { ApiHandler } from '../types';
import type { OffsetCommitRequest, OffsetCommitResponse } from './codec';

/** Checks member and generation, stores the offsets, answers once they are durable. */
export const handleOffsetCommit: ApiHandler<OffsetCommitRequest, OffsetCommitResponse> = async (broker, req, ctx) => {
  const verdict = broker.authorizer.group(ctx.session.principal, 'commit', req.groupId);
  let groupError: number = verdict.errorCode;
  if (groupError === ErrorCode.NONE) groupError = req.groupId ? broker.groups.commitAllowed(req) : ErrorCode.INVALID_GROUP_ID;
  const entries: OffsetCommitEntry[] = [];
  const topics = req.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => {
      let errorCode: number = groupError;
      if (errorCode === ErrorCode.NONE && !broker.logs.partition(t.name, p.partitionIndex)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
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
