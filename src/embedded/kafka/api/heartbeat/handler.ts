import type { ApiHandler } from '../types';
import type { HeartbeatRequest, HeartbeatResponse } from './codec';

export const handleHeartbeat: ApiHandler<HeartbeatRequest, HeartbeatResponse> = (broker, req) => ({
  throttleTimeMs: 0,
  errorCode: broker.groups.heartbeat(req),
});
