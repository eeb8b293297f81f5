import type { ApiCodec } from '../types';

/** DeleteGroups (key 42), v0–1 (v1 changed semantics only). */
export interface DeleteGroupsRequest {
  groupsNames: string[];
}

export interface DeleteGroupsResponse {
  throttleTimeMs: number;
  results: { groupId: string; errorCode: number }[];
}

export const deleteGroupsCodec: ApiCodec<DeleteGroupsRequest, DeleteGroupsResponse> = {
  key: 42,
  name: 'DeleteGroups',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return { groupsNames: r.array((r) => r.string()) };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs);
    w.array(res.results, (w, x) => w.string(x.groupId).int16(x.errorCode));
  },
};
