import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from './codec';

/** Partitions join the producer's transaction before it writes to them (their markers are written at its end). */
export const handleAddPartitionsToTxn: ApiHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> = async (broker, req, ctx) => {
  const partitions = req.topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
  const verdict = broker.authorizer.transactionalId(ctx.session.principal, req.transactionalId);
  const errors =
    verdict.errorCode !== ErrorCode.NONE
      ? partitions.map(() => verdict.errorCode)
      : await broker.transactions.addPartitions(req.transactionalId, req.producerId, req.producerEpoch, partitions);
  let i = 0;
  return {
    throttleTimeMs: 0,
    results: req.topics.map((t) => ({ name: t.name, results: t.partitions.map((partitionIndex) => ({ partitionIndex, errorCode: errors[i++]! })) })),
  };
};
