import type { ApiCodec } from '../types';

/** DescribeTransactions (key 65), v0 (flexible: compact encodings, tagged fields). */
export interface DescribeTransactionsRequest {
  transactionalIds: string[];
}

export interface DescribedTransaction {
  errorCode: number;
  transactionalId: string;
  transactionState: string;
  transactionTimeoutMs: number;
  /** When the open transaction began; -1 when none is open. */
  transactionStartTimeMs: number;
  producerId: number;
  producerEpoch: number;
  topics: { name: string; partitionIndexes: number[] }[];
}

export interface DescribeTransactionsResponse {
  throttleTimeMs: number;
  transactionStates: DescribedTransaction[];
}

export const describeTransactionsCodec: ApiCodec<DescribeTransactionsRequest, DescribeTransactionsResponse> = {
  key: 65,
  name: 'DescribeTransactions',
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  decodeRequest(r) {
    const transactionalIds = r.compactArray((r) => r.compactString());
    r.skipTaggedFields();
    return { transactionalIds };
  },
  encodeResponse(w, _version, res) {
    w.int32(res.throttleTimeMs);
    w.compactArray(res.transactionStates, (w, t) => {
      w.int16(t.errorCode).compactString(t.transactionalId).compactString(t.transactionState);
      w.int32(t.transactionTimeoutMs).int64(t.transactionStartTimeMs).int64(t.producerId).int32(t.producerEpoch);
      w.compactArray(t.topics, (w, p) =>
        w
          .compactString(p.name)
          .compactArray(p.partitionIndexes, (w, i) => w.int32(i))
          .noTaggedFields(),
      );
      w.noTaggedFields();
    });
    w.noTaggedFields();
  },
};
