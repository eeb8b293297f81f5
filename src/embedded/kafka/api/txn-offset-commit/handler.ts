import { ErrorCode } from '../../protocol/errors';
import type { PendingOffset } from '../../txn/transaction-state';
import type { ApiHandler } from '../types';
import type { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from './codec';

/** Offsets sent inside a transaction: the group sees them only once it commits (KIP-98 sendOffsetsToTransaction). */
export const handleTxnOffsetCommit: ApiHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> = async (broker, req, ctx) => {
  const owned = broker.authorizer.transactionalId(ctx.session.principal, req.transactionalId);
  const verdict = owned.errorCode !== ErrorCode.NONE ? owned : broker.authorizer.group(ctx.session.principal, 'commit', req.groupId);
  let errorCode: number = verdict.errorCode;
  const offsets: PendingOffset[] = [];
  for (const t of req.topics) {
    for (const p of t.partitions) {
      if (!broker.logs.partition(t.name, p.partitionIndex) && errorCode === ErrorCode.NONE) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      offsets.push([t.name, p.partitionIndex, p.committedOffset, p.committedLeaderEpoch, p.committedMetadata]);
    }
  }
  if (errorCode === ErrorCode.NONE)
    errorCode = await broker.transactions.commitOffsets(req.transactionalId, req.producerId, req.producerEpoch, req.groupId, offsets);
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  };
};
