import type { ApiCodec } from '../types';

/** OffsetDelete (key 47), v0 (KIP-496): removes a group's committed offsets for some partitions. */
export interface OffsetDeleteRequest {
  groupId: string;
  topics: { name: string; partitionIndexes: number[] }[];
}

export interface OffsetDeleteResponse {
  errorCode: number;
  throttleTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

export const offsetDeleteCodec: ApiCodec<OffsetDeleteRequest, OffsetDeleteResponse> = {
  key: 47,
  name: 'OffsetDelete',
  minVersion: 0,
  maxVersion: 0,
  decodeRequest(r) {
    return { groupId: r.string(), topics: r.array((r) => ({ name: r.string(), partitionIndexes: r.array((r) => r.int32()) })) };
  },
  encodeResponse(w, _version, res) {
    w.int16(res.errorCode).int32(res.throttleTimeMs);
    w.array(res.topics, (w, t) => {
      w.string(t.name);
      w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode));
    });
  },
};
