import type { ApiCodec } from '../types';

/**
 * JoinGroup (key 11), v0–5. v1: rebalance timeout. v2: throttle time. v5: group instance id (static
 * membership, KIP-345). v3, v4: format unchanged.
 */
export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: { name: string; metadata: Buffer }[];
}

export interface JoinGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
}

export const joinGroupCodec: ApiCodec<JoinGroupRequest, JoinGroupResponse> = {
  key: 11,
  name: 'JoinGroup',
  minVersion: 0,
  maxVersion: 5,
  decodeRequest(r, version) {
    const groupId = r.string();
    const sessionTimeoutMs = r.int32();
    const rebalanceTimeoutMs = version >= 1 ? r.int32() : sessionTimeoutMs;
    const memberId = r.string();
    const groupInstanceId = version >= 5 ? r.nullableString() : null;
    const protocolType = r.string();
    const protocols = r.array((r) => ({ name: r.string(), metadata: Buffer.from(r.bytes()) }));
    return { groupId, sessionTimeoutMs, rebalanceTimeoutMs, memberId, groupInstanceId, protocolType, protocols };
  },
  encodeResponse(w, version, res) {
    if (version >= 2) w.int32(res.throttleTimeMs);
    w.int16(res.errorCode).int32(res.generationId);
    // Not nullable before the flexible versions: an empty name stands for "none".
    w.string(res.protocolName ?? '')
      .string(res.leader)
      .string(res.memberId);
    w.array(res.members, (w, m) => {
      w.string(m.memberId);
      if (version >= 5) w.nullableString(m.groupInstanceId);
      w.bytes(m.metadata);
    });
  },
};
