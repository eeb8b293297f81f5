import type { ApiCodec } from '../types';

/**
 * LeaveGroup (key 13), v0–3. v1: throttle time. v3: a batch of members (each with its own error) in
 * place of the single member id. v2: format unchanged.
 */
export interface LeaveGroupRequest {
  groupId: string;
  members: { memberId: string; groupInstanceId: string | null }[];
}

export interface LeaveGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
}

export const leaveGroupCodec: ApiCodec<LeaveGroupRequest, LeaveGroupResponse> = {
  key: 13,
  name: 'LeaveGroup',
  minVersion: 0,
  maxVersion: 3,
  decodeRequest(r, version) {
    const groupId = r.string();
    if (version < 3) return { groupId, members: [{ memberId: r.string(), groupInstanceId: null }] };
    return { groupId, members: r.array((r) => ({ memberId: r.string(), groupInstanceId: r.nullableString() })) };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.int16(res.errorCode);
    if (version >= 3) w.array(res.members, (w, m) => w.string(m.memberId).nullableString(m.groupInstanceId).int16(m.errorCode));
  },
};
