import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { HeartbeatRequest, HeartbeatResponse } from './codec';

export const handleHeartbeat: ApiHandler<HeartbeatRequest, HeartbeatResponse> = (broker, req, ctx) => {
  const verdict = broker.authorizer.group(ctx.session.principal, 'join', req.groupId);
  return { throttleTimeMs: 0, errorCode: verdict.errorCode !== ErrorCode.NONE ? verdict.errorCode : broker.groups.heartbeat(req) };
};
