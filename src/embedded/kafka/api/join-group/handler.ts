import type { ApiHandler } from '../types';
import type { JoinGroupRequest, JoinGroupResponse } from './codec';

export const handleJoinGroup: ApiHandler<JoinGroupRequest, JoinGroupResponse> = async (broker, req, ctx) => {
  const r = await broker.groups.join({ ...req, clientId: ctx.clientId, clientHost: ctx.session.remoteHost });
  return { throttleTimeMs: 0, ...r };
};
