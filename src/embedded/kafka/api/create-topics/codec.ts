import type { ApiCodec } from '../types';

/**
 * CreateTopics (key 19), v0–4. v1: validate only; error message. v2: throttle time. v3: format unchanged.
 * v4 (KIP-464): format unchanged; numPartitions / replicationFactor -1 ask for the broker's defaults, which
 * librdkafka's admin API sends only to v4 brokers. Earlier versions get the same answer (kafkajs sends -1).
 */
export interface CreatableTopic {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: { partitionIndex: number; brokerIds: number[] }[];
  configs: { name: string; value: string | null }[];
}

export interface CreateTopicsRequest {
  topics: CreatableTopic[];
  timeoutMs: number;
  validateOnly: boolean;
}

export interface CreateTopicsResponse {
  throttleTimeMs: number;
  topics: { name: string; errorCode: number; errorMessage: string | null }[];
}

export const createTopicsCodec: ApiCodec<CreateTopicsRequest, CreateTopicsResponse> = {
  key: 19,
  name: 'CreateTopics',
  minVersion: 0,
  maxVersion: 4,
  decodeRequest(r, version) {
    const topics = r.array((r) => ({
      name: r.string(),
      numPartitions: r.int32(),
      replicationFactor: r.int16(),
      assignments: r.array((r) => ({ partitionIndex: r.int32(), brokerIds: r.array((r) => r.int32()) })),
      configs: r.array((r) => ({ name: r.string(), value: r.nullableString() })),
    }));
    const timeoutMs = r.int32();
    const validateOnly = version >= 1 ? r.bool() : false;
    return { topics, timeoutMs, validateOnly };
  },
  encodeResponse(w, version, res) {
    if (version >= 2) w.int32(res.throttleTimeMs);
    w.array(res.topics, (w, t) => {
      w.string(t.name).int16(t.errorCode);
      if (version >= 1) w.nullableString(t.errorMessage);
    });
  },
};
