import type { ApiCodec } from '../types';

/** AddOffsetsToTxn (key 25), v0–1 (v1 changed semantics only). */
export interface AddOffsetsToTxnRequest {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  groupId: string;
}

export interface AddOffsetsToTxnResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export const addOffsetsToTxnCodec: ApiCodec<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> = {
  key: 25,
  name: 'AddOffsetsToTxn',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return { transactionalId: r.string(), producerId: r.int64(), producerEpoch: r.int16(), groupId: r.string() };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs).int16(res.errorCode);
  },
};
