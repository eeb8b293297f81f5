import type { ApiCodec } from '../types';

/** SyncGroup (key 14), v0–3. v1: throttle time. v3: group instance id. v2: format unchanged. */
export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  assignments: { memberId: string; assignment: Buffer }[];
}

export interface SyncGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  assignment: Buffer;
}

export const syncGroupCodec: ApiCodec<SyncGroupRequest, SyncGroupResponse> = {
  key: 14,
  name: 'SyncGroup',
  minVersion: 0,
  maxVersion: 3,
  decodeRequest(r, version) {
    const groupId = r.string();
    const generationId = r.int32();
    const memberId = r.string();
    const groupInstanceId = version >= 3 ? r.nullableString() : null;
    const assignments = r.array((r) => ({ memberId: r.string(), assignment: Buffer.from(r.bytes()) }));
    return { groupId, generationId, memberId, groupInstanceId, assignments };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.int16(res.errorCode).bytes(res.assignment);
  },
};
