import type { GroupDescription } from '../../group/group-admin';
import type { ApiCodec } from '../types';

/**
 * DescribeGroups (key 15), v0–4. v1: throttle time. v3: include authorized operations (request) and the
 * group's authorized operations (response). v4: each member's group instance id. v2: format unchanged.
 */
export interface DescribeGroupsRequest {
  groups: string[];
  includeAuthorizedOperations: boolean;
}

export interface DescribedGroup extends GroupDescription {
  errorCode: number;
  /** Bit field of ACL operations; INT32_MIN when not asked for. */
  authorizedOperations: number;
}

export interface DescribeGroupsResponse {
  throttleTimeMs: number;
  groups: DescribedGroup[];
}

export const describeGroupsCodec: ApiCodec<DescribeGroupsRequest, DescribeGroupsResponse> = {
  key: 15,
  name: 'DescribeGroups',
  minVersion: 0,
  maxVersion: 4,
  decodeRequest(r, version) {
    return { groups: r.array((r) => r.string()), includeAuthorizedOperations: version >= 3 ? r.bool() : false };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.array(res.groups, (w, g) => {
      w.int16(g.errorCode).string(g.groupId).string(g.state).string(g.protocolType).string(g.protocol);
      w.array(g.members, (w, m) => {
        w.string(m.memberId);
        if (version >= 4) w.nullableString(m.groupInstanceId);
        w.string(m.clientId).string(m.clientHost).bytes(m.metadata).bytes(m.assignment);
      });
      if (version >= 3) w.int32(g.authorizedOperations);
    });
  },
};
