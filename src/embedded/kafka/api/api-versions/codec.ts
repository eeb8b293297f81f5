import type { ApiCodec } from '../types';

/**
 * ApiVersions (key 18), v0–3. v1: throttle time. v3 (KIP-511, the first flexible version): the client
 * names its software; compact arrays and tagged fields. The response header stays v0 in every version
 * (see protocol/header.ts). v2: format unchanged.
 */
export interface ApiVersionsRequest {
  clientSoftwareName: string | null;
  clientSoftwareVersion: string | null;
}

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
  maxVersion: 3,
  flexibleFrom: 3,
  decodeRequest(r, version) {
    if (version < 3) return { clientSoftwareName: null, clientSoftwareVersion: null };
    const request = { clientSoftwareName: r.compactString(), clientSoftwareVersion: r.compactString() };
    r.skipTaggedFields();
    return request;
  },
  encodeResponse(w, version, res) {
    w.int16(res.errorCode);
    if (version >= 3) {
      w.compactArray(res.apiKeys, (w, k) => w.int16(k.apiKey).int16(k.minVersion).int16(k.maxVersion).noTaggedFields());
      w.int32(res.throttleTimeMs).noTaggedFields();
      return;
    }
    w.array(res.apiKeys, (w, k) => w.int16(k.apiKey).int16(k.minVersion).int16(k.maxVersion));
    if (version >= 1) w.int32(res.throttleTimeMs);
  },
};
