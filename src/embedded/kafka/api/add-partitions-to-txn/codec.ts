import type { ApiCodec } from '../types';

/** AddPartitionsToTxn (key 24), v0–1 (v1 changed semantics only: retriable errors). */
export interface AddPartitionsToTxnRequest {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  topics: { name: string; partitions: number[] }[];
}

export interface AddPartitionsToTxnResponse {
  throttleTimeMs: number;
  results: { name: string; results: { partitionIndex: number; errorCode: number }[] }[];
}

export const addPartitionsToTxnCodec: ApiCodec<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> = {
  key: 24,
  name: 'AddPartitionsToTxn',
  minVersion: 0,
  maxVersion: 1,
  decodeRequest(r) {
    return {
      transactionalId: r.string(),
      producerId: r.int64(),
      producerEpoch: r.int16(),
      topics: r.array((r) => ({ name: r.string(), partitions: r.array((r) => r.int32()) })),
    };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs).array(res.results, (w, t) => {
      w.string(t.name).array(t.results, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode));
    });
  },
};
