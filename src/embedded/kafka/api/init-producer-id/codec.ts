import type { ApiCodec } from '../types';

/** InitProducerId (key 22), v0–1 (v1 changed semantics only). */
export interface InitProducerIdRequest {
  transactionalId: string | null;
  transactionTimeoutMs: number;
}

export interface InitProducerIdResponse {
  throttleTimeMs: number;
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export const initProducerIdCodec: ApiCodec<InitProducerIdRequest, InitProducerIdResponse> = {
  key: 22,
  name: 'InitProducerId',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return { transactionalId: r.nullableString(), transactionTimeoutMs: r.int32() };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs).int16(res.errorCode).int64(res.producerId).int16(res.producerEpoch);
  },
};
