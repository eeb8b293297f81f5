import type { ApiCodec } from '../types';

/** SaslAuthenticate (key 36), v0–1. v1: the session lifetime (0: the session does not expire). */
export interface SaslAuthenticateRequest {
  authBytes: Buffer;
}

export interface SaslAuthenticateResponse {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  sessionLifetimeMs: number;
}

export const saslAuthenticateCodec: ApiCodec<SaslAuthenticateRequest, SaslAuthenticateResponse> = {
  key: 36,
  name: 'SaslAuthenticate',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return { authBytes: r.bytes() };
  },
  encodeResponse(w, version, res) {
    w.int16(res.errorCode).nullableString(res.errorMessage).bytes(res.authBytes);
    if (version >= 1) w.int64(res.sessionLifetimeMs);
  },
};
