import { deleteOffsets } from '../../group/group-admin';
import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from './codec';

export const handleOffsetDelete: ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> = async (broker, req, ctx) => {
  if (!req.groupId) return { errorCode: ErrorCode.INVALID_GROUP_ID, throttleTimeMs: 0, topics: [] };
  const verdict = broker.authorizer.group(ctx.session.principal, 'commit', req.groupId);
  if (verdict.errorCode !== ErrorCode.NONE) return { errorCode: verdict.errorCode, throttleTimeMs: 0, topics: [] };
  const outcome = await deleteOffsets(broker.groups, req.groupId, req.topics, (name) => broker.logs.topic(name) !== undefined);
  return { ...outcome, throttleTimeMs: 0 };
};
