import type { ApiCodec } from '../types';

/** DeleteTopics (key 20), v0–3. v1: throttle time. v2, v3: format unchanged. */
export interface DeleteTopicsRequest {
  topicNames: string[];
  timeoutMs: number;
}

export interface DeleteTopicsResponse {
  throttleTimeMs: number;
  responses: { name: string; errorCode: number }[];
}

export const deleteTopicsCodec: ApiCodec<DeleteTopicsRequest, DeleteTopicsResponse> = {
  key: 20,
  name: 'DeleteTopics',
  minVersion: 0,
  maxVersion: 3,
  decodeRequest(r) {
    return { topicNames: r.array((r) => r.string()), timeoutMs: r.int32() };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.array(res.responses, (w, t) => w.string(t.name).int16(t.errorCode));
  },
};
