import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { OffsetFetchRequest, OffsetFetchResponse } from './codec';

/** Unknown partitions answer offset -1 with no error, as Kafka does; null topics list everything committed. */
export const handleOffsetFetch: ApiHandler<OffsetFetchRequest, OffsetFetchResponse> = (broker, req) => {
  const store = broker.groups.offsetStore;
  const requested = req.topics ?? [...store.all(req.groupId)].map(([name, parts]) => ({ name, partitionIndexes: [...parts.keys()].sort((a, b) => a - b) }));
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    topics: requested.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => {
        const c = store.get(req.groupId, t.name, partitionIndex);
        return {
          partitionIndex,
          committedOffset: c?.offset ?? -1,
          committedLeaderEpoch: c?.leaderEpoch ?? -1,
          metadata: c ? c.metadata : '',
          errorCode: ErrorCode.NONE,
        };
      }),
    })),
  };
};
