import { ErrorCode, MalformedFrameError } from '../../protocol/errors';
import { splitBatches } from '../../protocol/record-batch';
import type { PartitionLog } from '../../storage/partition-log';
import type { ApiHandler } from '../types';
import type { ProducePartitionResponse, ProduceRequest, ProduceResponse } from './codec';

/**
 * Appends each partition's batches (offsets assigned here), then answers once they are durable under the
 * fsync policy. acks=0 gets no answer at all.
 */
export const handleProduce: ApiHandler<ProduceRequest, ProduceResponse> = async (broker, req, ctx) => {
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
        const result = log.append(batches);
        if (result.errorCode === ErrorCode.NONE) touched.add(log);
        return answer(result.errorCode, result.baseOffset, log, result.logAppendTimeMs);
      }),
    };
  });
  for (const log of touched) broker.logs.appended(log);
  if (req.acks === 0) return null;
  try {
    await broker.logs.waitDurable();
  } catch {
    for (const t of topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE) p.errorCode = ErrorCode.KAFKA_STORAGE_ERROR;
  }
  return { topics, throttleTimeMs: 0 };
};
