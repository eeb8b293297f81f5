import type { ApiCodec } from '../types';

/** CreatePartitions (key 37), v0–1 (v1 changed semantics only): raises topics' partition counts. */
export interface CreatePartitionsTopic {
  name: string;
  count: number;
  /** Broker ids of each new partition; null (or empty) lets the broker place them. */
  assignments: { brokerIds: number[] }[] | null;
}

export interface CreatePartitionsRequest {
  topics: CreatePartitionsTopic[];
  timeoutMs: number;
  validateOnly: boolean;
}

export interface CreatePartitionsResponse {
  throttleTimeMs: number;
  results: { name: string; errorCode: number; errorMessage: string | null }[];
}

export const createPartitionsCodec: ApiCodec<CreatePartitionsRequest, CreatePartitionsResponse> = {
  key: 37,
  name: 'CreatePartitions',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    const topics = r.array((r) => ({
      name: r.string(),
      count: r.int32(),
      assignments: r.nullableArray((r) => ({ brokerIds: r.array((r) => r.int32()) })),
    }));
    return { topics, timeoutMs: r.int32(), validateOnly: r.bool() };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs);
    w.array(res.results, (w, x) => w.string(x.name).int16(x.errorCode).nullableString(x.errorMessage));
  },
};
