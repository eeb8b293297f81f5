import type { ApiCodec } from '../types';

/**
 * ListGroups (key 16), v0–4. v1: throttle time. v3: first flexible version. v4: a filter on group states
 * and each group's state in the answer (librdkafka's ListConsumerGroups needs it to filter). v2: format
 * unchanged.
 */
export interface ListGroupsRequest {
  statesFilter: string[];
}

export interface ListGroupsResponse {
  throttleTimeMs: number;
  errorCode: number;
  groups: { groupId: string; protocolType: string; state: string }[];
}

export const listGroupsCodec: ApiCodec<ListGroupsRequest, ListGroupsResponse> = {
  key: 16,
  name: 'ListGroups',
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 3,
  decodeRequest(r, version) {
    const statesFilter = version >= 4 ? r.compactArray((r) => r.compactString()) : [];
    if (version >= 3) r.skipTaggedFields();
    return { statesFilter };
  },
  encodeResponse(w, version, res) {
    if (version >= 1) w.int32(res.throttleTimeMs);
    w.int16(res.errorCode);
    if (version < 3) {
      w.array(res.groups, (w, g) => w.string(g.groupId).string(g.protocolType));
      return;
    }
    w.compactArray(res.groups, (w, g) => {
      w.compactString(g.groupId).compactString(g.protocolType);
      if (version >= 4) w.compactString(g.state);
      w.noTaggedFields();
    });
    w.noTaggedFields();
  },
};
