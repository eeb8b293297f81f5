import type { ApiCodec } from '../types';

/**
 * ListOffsets (key 2), v1–3. v1: one offset per partition by timestamp (-1 latest, -2 earliest).
 * v2: isolation level, throttle time. v3: format unchanged.
 */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;

export interface ListOffsetsRequest {
  replicaId: number;
  isolationLevel: number;
  topics: { name: string; partitions: { partitionIndex: number; timestamp: number }[] }[];
}

export interface ListOffsetsPartitionResponse {
  partitionIndex: number;
  errorCode: number;
  timestamp: number;
  offset: number;
}

export interface ListOffsetsResponse {
  throttleTimeMs: number;
  topics: { name: string; partitions: ListOffsetsPartitionResponse[] }[];
}

export const listOffsetsCodec: ApiCodec<ListOffsetsRequest, ListOffsetsResponse> = {
  key: 2,
  name: 'ListOffsets',
  minVersion: 1,
  maxVersion: 3,
  decodeRequest(r, version) {
    const replicaId = r.int32();
    const isolationLevel = version >= 2 ? r.int8() : 0;
    const topics = r.array((r) => ({
      name: r.string(),
      partitions: r.array((r) => ({ partitionIndex: r.int32(), timestamp: r.int64() })),
    }));
    return { replicaId, isolationLevel, topics };
  },
  encodeResponse(w, version, res) {
    if (version >= 2) w.int32(res.throttleTimeMs);
    w.array(res.topics, (w, t) => {
      w.string(t.name);
      w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode).int64(p.timestamp).int64(p.offset));
    });
  },
};
