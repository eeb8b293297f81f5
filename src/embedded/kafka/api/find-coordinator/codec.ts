import type { ApiCodec } from '../types';

/** FindCoordinator (key 10), v0–2. v1: key type; throttle time and error message. v2: format unchanged. */
export interface FindCoordinatorRequest {
  key: string;
  keyType: number;
}

export interface FindCoordinatorResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  nodeId: number;
  host: string;
  port: number;
}

export const findCoordinatorCodec: ApiCodec<FindCoordinatorRequest, FindCoordinatorResponse> = {
  key: 10,
  name: 'FindCoordinator',
  minVersion: 0,
  maxVersion: 2,
  decodeRequest(r, version) {
    return { key: r.string(), keyType: version >= 1 ? r.int8() : 0 };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.int16(res.errorCode);
    if (version >= 1) w.nullableString(res.errorMessage);
    w.int32(res.nodeId).string(res.host).int32(res.port);
  },
};
