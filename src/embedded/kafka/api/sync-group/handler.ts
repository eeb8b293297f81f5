import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { SyncGroupRequest, SyncGroupResponse } from './codec';

export const handleSyncGroup: ApiHandler<SyncGroupRequest, SyncGroupResponse> = async (broker, req, ctx) => {
  const verdict = broker.authorizer.group(ctx.session.principal, 'join', req.groupId);
  if (verdict.errorCode !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: verdict.errorCode, assignment: Buffer.alloc(0) };
  const r = await broker.groups.sync(req, req.assignments);
  return { throttleTimeMs: 0, ...r };
};
