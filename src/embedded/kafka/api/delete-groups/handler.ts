import { deleteGroup } from '../../group/group-admin';
import type { ApiHandler } from '../types';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from './codec';

/** Each group is deleted on its own: a group with members is refused (NON_EMPTY_GROUP), the others go. */
export const handleDeleteGroups: ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> = async (broker, req) => {
  const results: DeleteGroupsResponse['results'] = [];
  for (const groupId of req.groupsNames) results.push({ groupId, errorCode: await deleteGroup(broker.groups, groupId) });
  return { throttleTimeMs: 0, results };
};
