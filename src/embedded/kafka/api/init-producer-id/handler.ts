import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { InitProducerIdRequest, InitProducerIdResponse } from './codec';

/**
 * Idempotent producers get a fresh id (epoch 0). A transactional id keeps its producer id and gets the next epoch,
 * which fences any older producer with the same id (its open transaction is aborted first).
 */
export const handleInitProducerId: ApiHandler<InitProducerIdRequest, InitProducerIdResponse> = async (broker, req, ctx) => {
  if (req.transactionalId === null) return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: broker.allocateProducerId(), producerEpoch: 0 };
  const verdict = broker.authorizer.transactionalId(ctx.session.principal, req.transactionalId);
  if (verdict.errorCode !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: verdict.errorCode, producerId: -1, producerEpoch: -1 };
  const granted = await broker.transactions.initProducerId(req.transactionalId, req.transactionTimeoutMs);
  return { throttleTimeMs: 0, ...granted };
};
