import { ErrorCode } from '../../protocol/errors';
import { advertisedVersions } from '../negotiation';
import type { ApiHandler } from '../types';
import type { ApiVersionsRequest, ApiVersionsResponse } from './codec';

export const handleApiVersions: ApiHandler<ApiVersionsRequest, ApiVersionsResponse> = () => ({
  errorCode: ErrorCode.NONE,
  apiKeys: advertisedVersions(),
  throttleTimeMs: 0,
});
