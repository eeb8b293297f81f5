import type { Reader } from '../../protocol/reader';
import type { ApiCodec } from '../types';

/**
 * OffsetFetch (key 9), v1–5. v2: null topics = all committed; top-level error code. v3: throttle time.
 * v5: committed leader epoch. v4: format unchanged. (v0 read ZooKeeper-stored offsets: not offered.)
 */
export interface OffsetFetchRequest {
  groupId: string;
  topics: { name: string; partitionIndexes: number[] }[] | null;
}

export interface OffsetFetchPartition {
  partitionIndex: number;
  committedOffset: number;
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponse {
  throttleTimeMs: number;
  topics: { name: string; partitions: OffsetFetchPartition[] }[];
  errorCode: number;
}

export const offsetFetchCodec: ApiCodec<OffsetFetchRequest, OffsetFetchResponse> = {
  key: 9,
  name: 'OffsetFetch',
  minVersion: 1,
  maxVersion: 5,
  decodeRequest(r, version) {
    const groupId = r.string();
    const topic = (r: Reader) => ({ name: r.string(), partitionIndexes: r.array((r) => r.int32()) });
    const topics = version >= 2 ? r.nullableArray(topic) : r.array(topic);
    return { groupId, topics };
  },
  encodeResponse(w, version, res) {
    if (version >= 3) w.int32(res.throttleTimeMs);
    w.array(res.topics, (w, t) => {
      w.string(t.name);
      w.array(t.partitions, (w, p) => {
        w.int32(p.partitionIndex).int64(p.committedOffset);
        if (version >= 5) w.int32(p.committedLeaderEpoch);
        w.nullableString(p.metadata).int16(p.errorCode);
      });
    });
    if (version >= 2) w.int16(res.errorCode);
  },
};
