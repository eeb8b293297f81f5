import type { ApiCodec } from '../types';

/**
 * DescribeConfigs (key 32), v0–2. v0: is_default per entry. v1: include synonyms; config source and
 * synonyms in place of is_default. v2: format unchanged.
 */
export const ResourceType = { TOPIC: 2, BROKER: 4 } as const;
/** Config sources (v1+). */
export const ConfigSource = { TOPIC: 1, STATIC_BROKER: 4, DEFAULT: 5 } as const;

export interface DescribeConfigsRequest {
  resources: { resourceType: number; resourceName: string; configurationKeys: string[] | null }[];
  includeSynonyms: boolean;
}

export interface DescribedConfig {
  name: string;
  value: string | null;
  readOnly: boolean;
  isDefault: boolean;
  configSource: number;
  isSensitive: boolean;
}

export interface DescribeConfigsResponse {
  throttleTimeMs: number;
  results: { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string; configs: DescribedConfig[] }[];
}

export const describeConfigsCodec: ApiCodec<DescribeConfigsRequest, DescribeConfigsResponse> = {
  key: 32,
  name: 'DescribeConfigs',
  minVersion: 0,
  maxVersion: 2,
  decodeRequest(r, version) {
    const resources = r.array((r) => ({ resourceType: r.int8(), resourceName: r.string(), configurationKeys: r.nullableArray((r) => r.string()) }));
    return { resources, includeSynonyms: version >= 1 ? r.bool() : false };
  },
  encodeResponse(w, version, res) {
    w.int32(res.throttleTimeMs);
    w.array(res.results, (w, x) => {
      w.int16(x.errorCode).nullableString(x.errorMessage).int8(x.resourceType).string(x.resourceName);
      w.array(x.configs, (w, c) => {
        w.string(c.name).nullableString(c.value).bool(c.readOnly);
        if (version === 0) w.bool(c.isDefault);
        else w.int8(c.configSource);
        w.bool(c.isSensitive);
        if (version >= 1) w.int32(0); // synonyms: none
      });
    });
  },
};
