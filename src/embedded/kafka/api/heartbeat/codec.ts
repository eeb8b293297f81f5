import type { ApiCodec } from '../types';

/** Heartbeat (key 12), v0–3. v1: throttle time. v3: group instance id. v2: format unchanged. */
export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface HeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export const heartbeatCodec: ApiCodec<HeartbeatRequest, HeartbeatResponse> = {
  key: 12,
  name: 'Heartbeat',
  minVersion: 0,
  maxVersion: 3,
  decodeRequest(r, version) {
    return { groupId: r.string(), generationId: r.int32(), memberId: r.string(), groupInstanceId: version >= 3 ? r.nullableString() : null };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.int16(res.errorCode);
  },
};
