import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { InitProducerIdRequest, InitProducerIdResponse } from './codec';

/**
 * Idempotent producers get a fresh id (epoch 0). Transactions are not implemented: a transactional id is
 * refused with TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which clients report without retrying.
 */
export const handleInitProducerId: ApiHandler<InitProducerIdRequest, InitProducerIdResponse> = (broker, req) => {
  if (req.transactionalId !== null) {
    broker.logger.warn({ transactionalId: req.transactionalId }, 'transactions are not supported by the embedded broker');
    return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1, producerEpoch: -1 };
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: broker.allocateProducerId(), producerEpoch: 0 };
};
