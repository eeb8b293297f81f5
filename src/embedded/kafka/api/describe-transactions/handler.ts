import { ErrorCode } from '../../protocol/errors';
import { splitPartitionKey } from '../../txn/transaction-state';
import type { ApiHandler } from '../types';
import type { DescribeTransactionsRequest, DescribeTransactionsResponse, DescribedTransaction } from './codec';

/** Each named transactional id's state, producer and the partitions of its open transaction. */
export const handleDescribeTransactions: ApiHandler<DescribeTransactionsRequest, DescribeTransactionsResponse> = (broker, req, ctx) => {
  const known = new Map(broker.transactions.states().map((s) => [s.transactionalId, s]));
  return {
    throttleTimeMs: 0,
    transactionStates: req.transactionalIds.map((id): DescribedTransaction => {
      const s = known.get(id);
      const verdict = broker.authorizer.transactionalId(ctx.session.principal, id);
      if (!s || verdict.errorCode !== ErrorCode.NONE) {
        return {
          errorCode: verdict.errorCode !== ErrorCode.NONE ? verdict.errorCode : ErrorCode.TRANSACTIONAL_ID_NOT_FOUND,
          transactionalId: id,
          transactionState: '',
          transactionTimeoutMs: 0,
          transactionStartTimeMs: -1,
          producerId: -1,
          producerEpoch: -1,
          topics: [],
        };
      }
      const byTopic = new Map<string, number[]>();
      for (const key of s.partitions) {
        const { topic, partition } = splitPartitionKey(key);
        byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
      }
      return {
        errorCode: ErrorCode.NONE,
        transactionalId: id,
        transactionState: s.status,
        transactionTimeoutMs: s.timeoutMs,
        transactionStartTimeMs: s.status === 'Ongoing' ? s.sinceMs : -1,
        producerId: s.producerId,
        producerEpoch: s.producerEpoch,
        topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      };
    }),
  };
};
