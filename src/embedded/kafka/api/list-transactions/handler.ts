import { ErrorCode } from '../../protocol/errors';
import { TXN_STATUSES, type TxnStatus } from '../../txn/transaction-state';
import type { ApiHandler } from '../types';
import type { ListTransactionsRequest, ListTransactionsResponse } from './codec';

const isStatus = (s: string): s is TxnStatus => (TXN_STATUSES as readonly string[]).includes(s);

/**
 * Every transactional id the coordinator knows and the caller may see (as Kafka lists those it may describe),
 * filtered by state and producer id (empty filters match all).
 */
export const handleListTransactions: ApiHandler<ListTransactionsRequest, ListTransactionsResponse> = (broker, req, ctx) => {
  const visible = (id: string): boolean => broker.authorizer.transactionalId(ctx.session.principal, id).errorCode === ErrorCode.NONE;
  const states = new Set(req.stateFilters);
  const producers = new Set(req.producerIdFilters);
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    unknownStateFilters: req.stateFilters.filter((s) => !isStatus(s)),
    transactionStates: broker.transactions
      .states()
      .filter((s) => visible(s.transactionalId) && (states.size === 0 || states.has(s.status)) && (producers.size === 0 || producers.has(s.producerId)))
      .map((s) => ({ transactionalId: s.transactionalId, producerId: s.producerId, transactionState: s.status })),
  };
};
