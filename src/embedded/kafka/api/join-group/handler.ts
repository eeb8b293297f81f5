import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { JoinGroupRequest, JoinGroupResponse } from './codec';

export const handleJoinGroup: ApiHandler<JoinGroupRequest, JoinGroupResponse> = async (broker, req, ctx) => {
  const verdict = broker.authorizer.group(ctx.session.principal, 'join', req.groupId);
  if (verdict.errorCode !== ErrorCode.NONE) {
    return { throttleTimeMs: 0, errorCode: verdict.errorCode, generationId: -1, protocolName: null, leader: '', memberId: req.memberId, members: [] };
  }
  const r = await broker.groups.join({ ...req, clientId: ctx.clientId, clientHost: ctx.session.remoteHost });
  return { throttleTimeMs: 0, ...r };
};
