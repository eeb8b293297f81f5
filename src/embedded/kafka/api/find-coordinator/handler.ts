import { ErrorCode } from '../../protocol/errors';
import type { ApiHandler } from '../types';
import type { FindCoordinatorRequest, FindCoordinatorResponse } from './codec';

/** This single node coordinates every group and every transactional id (key types 0 and 1). */
export const handleFindCoordinator: ApiHandler<FindCoordinatorRequest, FindCoordinatorResponse> = (broker) => ({
  throttleTimeMs: 0,
  errorCode: ErrorCode.NONE,
  errorMessage: null,
  nodeId: broker.nodeId,
  host: broker.host,
  port: broker.port,
});
