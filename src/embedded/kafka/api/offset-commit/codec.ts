import type { ApiCodec } from '../types';

/**
 * OffsetCommit (key 8), v2–7. v2–4: retention time (ignored). v3: throttle time. v5: retention time
 * removed. v6: committed leader epoch. v7: group instance id.
 */
export interface OffsetCommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: {
    name: string;
    partitions: { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; committedMetadata: string | null }[];
  }[];
}

export interface OffsetCommitResponse {
  throttleTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

export const offsetCommitCodec: ApiCodec<OffsetCommitRequest, OffsetCommitResponse> = {
  key: 8,
  name: 'OffsetCommit',
  minVersion: 2,
  maxVersion: 7,
  decodeRequest(r, version) {
    const groupId = r.string();
    const generationId = r.int32();
    const memberId = r.string();
    const groupInstanceId = version >= 7 ? r.nullableString() : null;
    if (version <= 4) r.int64(); // retention time
    const topics = r.array((r) => ({
      name: r.string(),
      partitions: r.array((r) => ({
        partitionIndex: r.int32(),
        committedOffset: r.int64(),
        committedLeaderEpoch: version >= 6 ? r.int32() : -1,
        committedMetadata: r.nullableString(),
      })),
    }));
    return { groupId, generationId, memberId, groupInstanceId, topics };
  },
  encodeResponse(w, version, res) {
    if (version >= 3) w.int32(res.throttleTimeMs);
    w.array(res.topics, (w, t) => {
      w.string(t.name);
      w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode));
    });
  },
};
