import { ErrorCode } from '../../protocol/errors';
import { TransactionMarkerError } from '../../txn/coordinator';
import type { ApiHandler } from '../types';
import type { EndTxnRequest, EndTxnResponse } from './codec';

/**
 * Commits or aborts: answered once the markers are durable on every partition of the transaction and its offsets
 * are committed. A failure to write them leaves the transaction decided (the restart finishes it): the client gets
 * a retriable COORDINATOR_NOT_AVAILABLE meanwhile.
 */
export const handleEndTxn: ApiHandler<EndTxnRequest, EndTxnResponse> = async (broker, req, ctx) => {
  const verdict = broker.authorizer.transactionalId(ctx.session.principal, req.transactionalId);
  if (verdict.errorCode !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: verdict.errorCode };
  try {
    return { throttleTimeMs: 0, errorCode: await broker.transactions.endTxn(req.transactionalId, req.producerId, req.producerEpoch, req.committed) };
  } catch (err) {
    if (!(err instanceof TransactionMarkerError)) throw err;
    broker.logger.error({ err, transactionalId: req.transactionalId }, 'ending a transaction failed');
    return { throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE };
  }
};
