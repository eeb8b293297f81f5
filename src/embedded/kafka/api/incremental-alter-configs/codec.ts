import { encodeAlterConfigsResponse, type AlterConfigsResponse } from '../alter-configs/codec';
import type { ApiCodec } from '../types';

/**
 * IncrementalAlterConfigs (key 44), v0 (KIP-339): changes named configs one by one and leaves the rest.
 * v1 is the first flexible version (not served). The response has AlterConfigs' format.
 */
export const ConfigOperation = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

export interface IncrementalConfigChange {
  name: string;
  operation: number;
  value: string | null;
}

export interface IncrementalAlterConfigsRequest {
  resources: { resourceType: number; resourceName: string; configs: IncrementalConfigChange[] }[];
  validateOnly: boolean;
}

export const incrementalAlterConfigsCodec: ApiCodec<IncrementalAlterConfigsRequest, AlterConfigsResponse> = {
  key: 44,
  name: 'IncrementalAlterConfigs',
  minVersion: 0,
  maxVersion: 0,
  decodeRequest(r) {
    const resources = r.array((r) => ({
      resourceType: r.int8(),
      resourceName: r.string(),
      configs: r.array((r) => ({ name: r.string(), operation: r.int8(), value: r.nullableString() })),
    }));
    return { resources, validateOnly: r.bool() };
  },
  encodeResponse: (w, _version, res) => encodeAlterConfigsResponse(w, res),
};
