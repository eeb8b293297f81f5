import type { ApiCodec } from '../types';

/** ListTransactions (key 66), v0 (flexible: compact encodings, tagged fields). */
export interface ListTransactionsRequest {
  stateFilters: string[];
  producerIdFilters: number[];
}

export interface ListTransactionsResponse {
  throttleTimeMs: number;
  errorCode: number;
  unknownStateFilters: string[];
  transactionStates: { transactionalId: string; producerId: number; transactionState: string }[];
}

export const listTransactionsCodec: ApiCodec<ListTransactionsRequest, ListTransactionsResponse> = {
  key: 66,
  name: 'ListTransactions',
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  decodeRequest(r) {
    const stateFilters = r.compactArray((r) => r.compactString());
    const producerIdFilters = r.compactArray((r) => r.int64());
    r.skipTaggedFields();
    return { stateFilters, producerIdFilters };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs).int16(res.errorCode);
    w.compactArray(res.unknownStateFilters, (w, s) => w.compactString(s));
    w.compactArray(res.transactionStates, (w, t) => w.compactString(t.transactionalId).int64(t.producerId).compactString(t.transactionState).noTaggedFields());
    w.noTaggedFields();
  },
};
