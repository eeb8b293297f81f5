import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, type ListOffsetsPartitionResponse, type ListOffsetsRequest, type ListOffsetsResponse } from './codec';

/** Latest = high watermark (the last stable offset for read_committed), earliest = log start, else by record timestamp. */
export const handleListOffsets: ApiHandler<ListOffsetsRequest, ListOffsetsResponse> = async (broker, req) => ({
  throttleTimeMs: 0,
  topics: await Promise.all(
    req.topics.map(async (t) => ({
      name: t.name,
      partitions: await Promise.all(
        t.partitions.map(async (p): Promise<ListOffsetsPartitionResponse> => {
          const log = broker.logs.partition(t.name, p.partitionIndex);
          const base = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE as number, timestamp: -1 };
          if (!log) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: -1 };
          if (p.timestamp === LATEST_TIMESTAMP) return { ...base, offset: req.isolationLevel === 1 ? log.lastStableOffset : log.highWatermark };
          if (p.timestamp === EARLIEST_TIMESTAMP) return { ...base, offset: log.logStartOffset };
          const found = await log.offsetForTimestamp(p.timestamp);
          return { ...base, timestamp: found.timestamp, offset: found.offset };
        }),
      ),
    })),
  ),
});
