import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from './codec';

/** A consumer group joins the transaction: offsets it then sends with TxnOffsetCommit commit with it. */
export const handleAddOffsetsToTxn: ApiHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> = async (broker, req, ctx) => {
  for (const verdict of [
    broker.authorizer.transactionalId(ctx.session.principal, req.transactionalId),
    broker.authorizer.group(ctx.session.principal, 'commit', req.groupId),
  ]) {
    if (verdict.errorCode !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: verdict.errorCode };
  }
  if (!req.groupId) return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
  return { throttleTimeMs: 0, errorCode: await broker.transactions.addOffsets(req.transactionalId, req.producerId, req.producerEpoch, req.groupId) };
};
