import type { ApiCodec } from '../types';

/** EndTxn (key 26), v0–1 (v1 changed semantics only). */
export interface EndTxnRequest {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  committed: boolean;
}

export interface EndTxnResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export const endTxnCodec: ApiCodec<EndTxnRequest, EndTxnResponse> = {
  key: 26,
  name: 'EndTxn',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return { transactionalId: r.string(), producerId: r.int64(), producerEpoch: r.int16(), committed: r.bool() };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs).int16(res.errorCode);
  },
};
