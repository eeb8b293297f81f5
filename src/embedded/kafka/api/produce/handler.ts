import { ErrorCode, MalformedFrameError } from '../../protocol/errors';
import { isTransactional } from '../../protocol/control-batch';
import { readBatchHeader, splitBatches } from '../../protocol/record-batch';
import type { BrokerContext } from '../../broker';
import type { PartitionLog } from '../../storage/partition-log';
import { AnswerLater, type ApiHandler } from '../types';
import type { ProducePartitionResponse, ProduceRequest, ProduceResponse } from './codec';

/**
 * Appends each partition's batches (offsets assigned here) at once, and answers once they are durable under
 * the fsync policy: later, so the connection's next produce is appended meanwhile and shares the fsync.
 * acks=0 gets no answer at all.
 */
export const handleProduce: ApiHandler<ProduceRequest, ProduceResponse> = (broker, req, ctx) => {
  const validAcks = req.acks === 0 || req.acks === 1 || req.acks === -1;
  const touched = new Set<PartitionLog>();
  const topics = req.topics.map((t) => {
    const verdict = broker.authorizer.topic(ctx.session.principal, 'produce', t.name);
    return {
      name: t.name,
      partitions: t.partitions.map((p): ProducePartitionResponse => {
        const answer = (errorCode: number, baseOffset = -1, log?: PartitionLog, logAppendTimeMs = -1): ProducePartitionResponse => ({
          index: p.index,
          errorCode,
          baseOffset,
          logAppendTimeMs,
          logStartOffset: log?.logStartOffset ?? -1,
        });
        if (!validAcks) return answer(ErrorCode.INVALID_REQUIRED_ACKS);
        if (verdict.errorCode !== ErrorCode.NONE) return answer(verdict.errorCode);
        const log = broker.logs.partition(t.name, p.index);
        if (!log) return answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (!p.records || p.records.length === 0) return answer(ErrorCode.CORRUPT_MESSAGE, -1, log);
        let batches: Buffer[];
        try {
          batches = splitBatches(p.records);
        } catch (e) {
          if (e instanceof MalformedFrameError) return answer(ErrorCode.CORRUPT_MESSAGE, -1, log);
          throw e;
        }
        const txnError = transactionalWriteError(broker, batches, t.name, p.index);
        if (txnError !== ErrorCode.NONE) return answer(txnError, -1, log);
        const result = log.append(batches);
        if (result.errorCode === ErrorCode.NONE) touched.add(log);
        return answer(result.errorCode, result.baseOffset, log, result.logAppendTimeMs);
      }),
    };
  });
  for (const log of touched) broker.logs.appended(log);
  if (req.acks === 0) return null;
  const answer = (): ProduceResponse => ({ topics, throttleTimeMs: 0 });
  return new AnswerLater(
    broker.logs.waitDurable().then(answer, () => {
      for (const t of topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE) p.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
      return answer();
    }),
  );
};

/** A transactional batch is accepted only inside its producer's open transaction on this partition. */
function transactionalWriteError(broker: BrokerContext, batches: Buffer[], topic: string, partition: number): number {
  for (const batch of batches) {
    const h = readBatchHeader(batch);
    if (!isTransactional(h)) continue;
    const errorCode = broker.transactions.checkTransactionalWrite(h.producerId, h.producerEpoch, topic, partition);
    if (errorCode !== ErrorCode.NONE) return errorCode;
  }
  return ErrorCode.NONE;
}
