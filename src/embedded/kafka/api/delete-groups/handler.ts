import { deleteGroup } from '../../group/group-admin';
import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { DeleteGroupsRequest, DeleteGroupsResponse } from './codec';

/** Each group is deleted on its own: a group with members is refused (NON_EMPTY_GROUP), the others go. */
export const handleDeleteGroups: ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> = async (broker, req, ctx) => {
  const results: DeleteGroupsResponse['results'] = [];
  for (const groupId of req.groupsNames) {
    const verdict = broker.authorizer.group(ctx.session.principal, 'delete', groupId);
    results.push({ groupId, errorCode: verdict.errorCode !== ErrorCode.NONE ? verdict.errorCode : await deleteGroup(broker.groups, groupId) });
  }
  return { throttleTimeMs: 0, results };
};
