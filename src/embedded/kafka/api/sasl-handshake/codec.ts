import type { ApiCodec } from '../types';

/**
 * SaslHandshake (key 17), v0–1. v1: the tokens that follow travel in SaslAuthenticate requests; after v0
 * they come as bare size-prefixed frames. Format unchanged between the versions.
 */
export interface SaslHandshakeRequest {
  mechanism: string;
}

export interface SaslHandshakeResponse {
  errorCode: number;
  mechanisms: readonly string[];
}

export const saslHandshakeCodec: ApiCodec<SaslHandshakeRequest, SaslHandshakeResponse> = {
  key: 17,
  name: 'SaslHandshake',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return { mechanism: r.string() };
  },
  encodeResponse(w, _version, res) {
    w.int16(res.errorCode).array(res.mechanisms, (w, m) => w.string(m));
  },
};
