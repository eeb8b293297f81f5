import type { ApiHandler } from '../types';
import type { SyncGroupRequest, SyncGroupResponse } from './codec';

export const handleSyncGroup: ApiHandler<SyncGroupRequest, SyncGroupResponse> = async (broker, req) => {
  const r = await broker.groups.sync(req, req.assignments);
  return { throttleTimeMs: 0, ...r };
};
