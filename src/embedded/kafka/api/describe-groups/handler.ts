import { describeGroup } from '../../group/group-admin';
import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { DescribeGroupsRequest, DescribeGroupsResponse } from './codec';

/** ACL operation codes a group has (READ 3, DELETE 6, DESCRIBE 8): with no ACLs every caller may do all three. */
const GROUP_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8);
const NOT_REQUESTED = -2147483648;

/** An unknown group is described as 'Dead' with no error, as Kafka does. */
export const handleDescribeGroups: ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> = (broker, req) => ({
  throttleTimeMs: 0,
  groups: req.groups.map((groupId) => ({
    ...describeGroup(broker.groups, groupId),
    errorCode: groupId ? ErrorCode.NONE : ErrorCode.INVALID_GROUP_ID,
    authorizedOperations: req.includeAuthorizedOperations ? GROUP_OPERATIONS : NOT_REQUESTED,
  })),
});
