import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { LeaveGroupRequest, LeaveGroupResponse } from './codec';

export const handleLeaveGroup: ApiHandler<LeaveGroupRequest, LeaveGroupResponse> = (broker, req, ctx) => {
  const verdict = broker.authorizer.group(ctx.session.principal, 'join', req.groupId);
  if (verdict.errorCode !== ErrorCode.NONE)
    return { throttleTimeMs: 0, errorCode: verdict.errorCode, members: req.members.map((m) => ({ ...m, errorCode: verdict.errorCode })) };
  const members = req.members.map((m) => ({ ...m, errorCode: broker.groups.leave(req.groupId, m.memberId, m.groupInstanceId) }));
  // Before v3 the single member's error is the response's error.
  const errorCode = ctx.apiVersion < 3 ? (members[0]?.errorCode ?? ErrorCode.NONE) : ErrorCode.NONE;
  return { throttleTimeMs: 0, errorCode, members };
};
