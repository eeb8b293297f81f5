import type { Writer } from '../../protocol/writer';
import type { ApiCodec } from '../types';

/**
 * AlterConfigs (key 33), v0–1 (v1 changed semantics only): replaces the whole set of a resource's explicit
 * configs; a config left out returns to its default. IncrementalAlterConfigs answers in the same format.
 */
export interface AlterConfigsResource {
  resourceType: number;
  resourceName: string;
  configs: { name: string; value: string | null }[];
}

export interface AlterConfigsRequest {
  resources: AlterConfigsResource[];
  validateOnly: boolean;
}

export interface AlterConfigsResourceResponse {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

export interface AlterConfigsResponse {
  throttleTimeMs: number;
  responses: AlterConfigsResourceResponse[];
}

export function encodeAlterConfigsResponse(w: Writer, res: AlterConfigsResponse): void {
  w.int32(res.throttleTimeMs);
  w.array(res.responses, (w, x) => w.int16(x.errorCode).nullableString(x.errorMessage).int8(x.resourceType).string(x.resourceName));
}

export const alterConfigsCodec: ApiCodec<AlterConfigsRequest, AlterConfigsResponse> = {
  key: 33,
  name: 'AlterConfigs',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    const resources = r.array((r) => ({
      resourceType: r.int8(),
      resourceName: r.string(),
      configs: r.array((r) => ({ name: r.string(), value: r.nullableString() })),
    }));
    return { resources, validateOnly: r.bool() };
  },
  encodeResponse: (w, _version, res) => encodeAlterConfigsResponse(w, res),
};
