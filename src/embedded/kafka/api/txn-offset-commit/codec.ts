import type { ApiCodec } from '../types';

/** TxnOffsetCommit (key 28), v0–2. v1: semantics only. v2: committed leader epoch. */
export interface TxnOffsetCommitRequest {
  transactionalId: string;
  groupId: string;
  producerId: number;
  producerEpoch: number;
  topics: {
    name: string;
    partitions: { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; committedMetadata: string | null }[];
  }[];
}

export interface TxnOffsetCommitResponse {
  throttleTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

export const txnOffsetCommitCodec: ApiCodec<TxnOffsetCommitRequest, TxnOffsetCommitResponse> = {
  key: 28,
  name: 'TxnOffsetCommit',
  minVersion: 0,
  maxVersion: 2,
  decodeRequest(r, version) {
    return {
      transactionalId: r.string(),
      groupId: r.string(),
      producerId: r.int64(),
      producerEpoch: r.int16(),
      topics: r.array((r) => ({
        name: r.string(),
        partitions: r.array((r) => ({
          partitionIndex: r.int32(),
          committedOffset: r.int64(),
          committedLeaderEpoch: version >= 2 ? r.int32() : -1,
          committedMetadata: r.nullableString(),
        })),
      })),
    };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs).array(res.topics, (w, t) => {
      w.string(t.name).array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode));
    });
  },
};
