import type { TransactionalPublisher } from './port';

/**
 * A transactional producer has one transaction open at a time: calls made while one runs wait their turn. Run side
 * by side, a second call's records would join the first's transaction and be committed by its end, and the
 * second's own end would then fail (and its input be handled again): the repeat transactions exist to prevent.
 */
export function oneTransactionAtATime(publisher: TransactionalPublisher): TransactionalPublisher {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    publishAndCommit: (records, consumed) => {
      const turn = tail.then(() => publisher.publishAndCommit(records, consumed));
      tail = turn.catch(() => undefined);
      return turn;
    },
    close: async () => {
      await tail;
      await publisher.close();
    },
  };
}
