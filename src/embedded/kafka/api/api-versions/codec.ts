import type { ApiCodec } from '../types';

/** ApiVersions (key 18), v0–2: the request body is empty; v1+ adds throttle time to the response. */
export interface ApiVersionsRequest {}

export interface ApiVersionRange {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export interface ApiVersionsResponse {
  errorCode: number;
  apiKeys: ApiVersionRange[];
  throttleTimeMs: number;
}

export const apiVersionsCodec: ApiCodec<ApiVersionsRequest, ApiVersionsResponse> = {
  key: 18,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 2,
  decodeRequest: () => ({}),
  encodeResponse(w, version, res) {
    w.int16(res.errorCode);
    w.array(res.apiKeys, (w, k) => w.int16(k.apiKey).int16(k.minVersion).int16(k.maxVersion));
    if (version >= 1) w.int32(res.throttleTimeMs);
  },
};
