import { listGroups } from '../../group/group-admin';
import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { ListGroupsRequest, ListGroupsResponse } from './codec';

export const handleListGroups: ApiHandler<ListGroupsRequest, ListGroupsResponse> = (broker, req) => ({
  throttleTimeMs: 0,
  errorCode: ErrorCode.NONE,
  groups: listGroups(broker.groups, req.statesFilter),
});
