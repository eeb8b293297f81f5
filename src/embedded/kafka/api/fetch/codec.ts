import type { ApiCodec } from '../types';

/**
 * Fetch (key 1), v4–11. v4: isolation level, last stable offset, aborted transactions. v5: log start
 * offset. v7: fetch sessions (we answer session 0: every fetch is a full one) and forgotten topics.
 * v9: current leader epoch. v11: rack id and preferred read replica. v6, v8, v10: format unchanged.
 */
export interface FetchPartitionRequest {
  partition: number;
  currentLeaderEpoch: number;
  fetchOffset: number;
  logStartOffset: number;
  partitionMaxBytes: number;
}

export interface FetchRequest {
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  isolationLevel: number;
  sessionId: number;
  sessionEpoch: number;
  topics: { topic: string; partitions: FetchPartitionRequest[] }[];
  forgottenTopics: { topic: string; partitions: number[] }[];
  rackId: string;
}

export interface FetchPartitionResponse {
  partitionIndex: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** Aborted transactions in the range served (read_committed); null for read_uncommitted. */
  abortedTransactions: { producerId: number; firstOffset: number }[] | null;
  /** Stored record batches, sent as they are (possibly several buffers). */
  records: Buffer[] | null;
}

export interface FetchResponse {
  throttleTimeMs: number;
  errorCode: number;
  sessionId: number;
  responses: { topic: string; partitions: FetchPartitionResponse[] }[];
}

export const fetchCodec: ApiCodec<FetchRequest, FetchResponse> = {
  key: 1,
  name: 'Fetch',
  minVersion: 4,
  maxVersion: 11,
  decodeRequest(r, version) {
    const replicaId = r.int32();
    const maxWaitMs = r.int32();
    const minBytes = r.int32();
    const maxBytes = r.int32();
    const isolationLevel = r.int8();
    const sessionId = version >= 7 ? r.int32() : 0;
    const sessionEpoch = version >= 7 ? r.int32() : -1;
    const topics = r.array((r) => ({
      topic: r.string(),
      partitions: r.array((r) => ({
        partition: r.int32(),
        currentLeaderEpoch: version >= 9 ? r.int32() : -1,
        fetchOffset: r.int64(),
        logStartOffset: version >= 5 ? r.int64() : -1,
        partitionMaxBytes: r.int32(),
      })),
    }));
    const forgottenTopics = version >= 7 ? r.array((r) => ({ topic: r.string(), partitions: r.array((r) => r.int32()) })) : [];
    const rackId = version >= 11 ? r.string() : '';
    return { replicaId, maxWaitMs, minBytes, maxBytes, isolationLevel, sessionId, sessionEpoch, topics, forgottenTopics, rackId };
  },
  encodeResponse(w, version, res) {
    w.int32(res.throttleTimeMs);
    if (version >= 7) w.int16(res.errorCode).int32(res.sessionId);
    w.array(res.responses, (w, t) => {
      w.string(t.topic);
      w.array(t.partitions, (w, p) => {
        w.int32(p.partitionIndex).int16(p.errorCode).int64(p.highWatermark).int64(p.lastStableOffset);
        if (version >= 5) w.int64(p.logStartOffset);
        w.nullableArray(p.abortedTransactions, (w, a) => w.int64(a.producerId).int64(a.firstOffset));
        if (version >= 11) w.int32(-1); // preferred read replica: none
        // Empty, never null: librdkafka rejects a MessageSetSize of -1.
        w.bytesFromChunks(p.records ?? []);
      });
    });
  },
};
