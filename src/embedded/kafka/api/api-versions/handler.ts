import { ErrorCode } from '../../protocol/errors';
import { advertisedVersions } from '../negotiation';
import type { ApiHandler } from '../types';
import type { ApiVersionsRequest, ApiVersionsResponse } from './codec';

/** KIP-511's rule for software names and versions: letters, digits, '-' and '.', starting and ending alphanumeric. */
const SOFTWARE_FIELD = /^[a-zA-Z0-9](?:[a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;

/** Our version table; v3+ also records the client's software on its connection (INVALID_REQUEST when malformed). */
export const handleApiVersions: ApiHandler<ApiVersionsRequest, ApiVersionsResponse> = (_broker, req, ctx) => {
  const { clientSoftwareName: name, clientSoftwareVersion: version } = req;
  if (name !== null && version !== null) {
    if (!SOFTWARE_FIELD.test(name) || !SOFTWARE_FIELD.test(version)) return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 };
    ctx.session.clientSoftware = { name, version };
  }
  return { errorCode: ErrorCode.NONE, apiKeys: advertisedVersions(), throttleTimeMs: 0 };
};
