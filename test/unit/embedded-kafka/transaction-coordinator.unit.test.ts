import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../../src/logger';
import { BrokerContext } from '../../../src/embedded/kafka/broker';
import { resolveOptions } from '../../../src/embedded/kafka/options';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import { PartitionTransactions } from '../../../src/embedded/kafka/storage/partition-transactions';
import { TransactionLog } from '../../../src/embedded/kafka/txn/transaction-log';

describe('transaction coordinator', () => {
  let dir: string;
  let broker: BrokerContext;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-txn-coordinator-'));
    broker = new BrokerContext(resolveOptions({ dataDir: dir, port: 0, logger: silentLogger() }));
    broker.logs.createTopic('x', 2);
  });
  afterEach(async () => {
    await broker.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const x0 = [{ topic: 'x', partition: 0 }];

  test('a timeout above the maximum is refused; a transactional id keeps its producer id and gets the next epoch', async () => {
    const txns = broker.transactions;
    expect((await txns.initProducerId('tx', 16 * 60_000)).errorCode).toBe(ErrorCode.INVALID_TRANSACTION_TIMEOUT);
    const first = await txns.initProducerId('tx', 60_000);
    const second = await txns.initProducerId('tx', 60_000);
    expect(second).toEqual({ errorCode: ErrorCode.NONE, producerId: first.producerId, producerEpoch: first.producerEpoch + 1 });
    expect((await txns.initProducerId('other', 60_000)).producerId).not.toBe(first.producerId);
  });

  test('requests of an old epoch or another producer id are refused', async () => {
    const txns = broker.transactions;
    const old = await txns.initProducerId('tx', 60_000);
    const current = await txns.initProducerId('tx', 60_000);
    expect(await txns.addPartitions('tx', old.producerId, old.producerEpoch, x0)).toEqual([ErrorCode.INVALID_PRODUCER_EPOCH]);
    expect(await txns.addPartitions('tx', current.producerId + 1, current.producerEpoch, x0)).toEqual([ErrorCode.INVALID_PRODUCER_ID_MAPPING]);
    expect(await txns.endTxn('nobody', current.producerId, current.producerEpoch, true)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    expect(await txns.addPartitions('tx', current.producerId, current.producerEpoch, [...x0, { topic: 'nope', partition: 0 }])).toEqual([
      ErrorCode.OPERATION_NOT_ATTEMPTED,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    ]);
  });

  test('EndTxn needs an open transaction; a retry of a finished end succeeds, the opposite end does not', async () => {
    const txns = broker.transactions;
    const { producerId, producerEpoch } = await txns.initProducerId('tx', 60_000);
    expect(await txns.endTxn('tx', producerId, producerEpoch, true)).toBe(ErrorCode.INVALID_TXN_STATE);
    await txns.addPartitions('tx', producerId, producerEpoch, x0);
    expect(await txns.endTxn('tx', producerId, producerEpoch, true)).toBe(ErrorCode.NONE);
    expect(await txns.endTxn('tx', producerId, producerEpoch, true)).toBe(ErrorCode.NONE);
    expect(await txns.endTxn('tx', producerId, producerEpoch, false)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(broker.logs.partition('x', 0)!.logEndOffset).toBe(1); // one commit marker
  });

  test('TxnOffsetCommit needs its group added first; the offsets reach the group only on commit', async () => {
    const txns = broker.transactions;
    const { producerId, producerEpoch } = await txns.initProducerId('tx', 60_000);
    const offsets: [string, number, number, number, string | null][] = [['x', 1, 9, -1, null]];
    expect(await txns.commitOffsets('tx', producerId, producerEpoch, 'g', offsets)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(await txns.addOffsets('tx', producerId, producerEpoch, 'g')).toBe(ErrorCode.NONE);
    expect(await txns.commitOffsets('tx', producerId, producerEpoch, 'g', offsets)).toBe(ErrorCode.NONE);
    expect(broker.groups.offsetStore.get('g', 'x', 1)).toBeUndefined();
    expect(await txns.endTxn('tx', producerId, producerEpoch, true)).toBe(ErrorCode.NONE);
    expect(broker.groups.offsetStore.get('g', 'x', 1)?.offset).toBe(9);
  });

  test('the journal is fsynced for the states a restart needs (begin, decide), not for the group, its offsets or the end', async () => {
    const txns = broker.transactions;
    const { producerId, producerEpoch } = await txns.initProducerId('tx', 60_000);
    const fdatasync = jest.spyOn(fs, 'fdatasync');
    const syncs = (): number => {
      const n = fdatasync.mock.calls.length;
      fdatasync.mockClear();
      return n;
    };
    try {
      await txns.addPartitions('tx', producerId, producerEpoch, x0);
      expect(syncs()).toBe(1);
      await txns.addOffsets('tx', producerId, producerEpoch, 'g');
      await txns.commitOffsets('tx', producerId, producerEpoch, 'g', [['x', 1, 9, -1, null]]);
      expect(syncs()).toBe(0);
      await txns.endTxn('tx', producerId, producerEpoch, true);
      // The decision, the marker's partition (group commit) and the committed offsets; not the CompleteCommit line.
      expect(syncs()).toBe(3);
      expect(txns.states()[0]?.status).toBe('CompleteCommit');
      // The periodic sync (the coordinator's timer) catches the line up, once.
      const journal = (txns as unknown as { journal: TransactionLog }).journal;
      await journal.syncIfBehind();
      expect(syncs()).toBe(1);
      await journal.syncIfBehind();
      expect(syncs()).toBe(0);
    } finally {
      fdatasync.mockRestore();
    }
  });

  test('a periodic sync that fails leaves the lines behind, and the next one tries again', async () => {
    const txns = broker.transactions;
    const { producerId, producerEpoch } = await txns.initProducerId('tx', 60_000);
    await txns.addOffsets('tx', producerId, producerEpoch, 'g');
    const journal = (txns as unknown as { journal: TransactionLog }).journal;
    const fdatasync = jest.spyOn(fs, 'fdatasync').mockImplementationOnce((_fd, done) => done(new Error('EIO')));
    try {
      await expect(journal.syncIfBehind()).rejects.toThrow('EIO');
      await journal.syncIfBehind();
      expect(fdatasync).toHaveBeenCalledTimes(2);
      await journal.syncIfBehind();
      expect(fdatasync).toHaveBeenCalledTimes(2);
    } finally {
      fdatasync.mockRestore();
    }
  });

  test('transactional batches are accepted only inside the open transaction, for partitions added to it, at the current epoch', async () => {
    const txns = broker.transactions;
    const { producerId, producerEpoch } = await txns.initProducerId('tx', 60_000);
    expect(txns.checkTransactionalWrite(producerId, producerEpoch, 'x', 0)).toBe(ErrorCode.INVALID_TXN_STATE);
    await txns.addPartitions('tx', producerId, producerEpoch, x0);
    expect(txns.checkTransactionalWrite(producerId, producerEpoch, 'x', 0)).toBe(ErrorCode.NONE);
    expect(txns.checkTransactionalWrite(producerId, producerEpoch, 'x', 1)).toBe(ErrorCode.INVALID_TXN_STATE);
    expect(txns.checkTransactionalWrite(producerId + 1, 0, 'x', 0)).toBe(ErrorCode.INVALID_PRODUCER_ID_MAPPING);
    await txns.initProducerId('tx', 60_000);
    expect(txns.checkTransactionalWrite(producerId, producerEpoch, 'x', 0)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
  });
});

describe('transaction journal', () => {
  test('is rewritten with the live states once most lines are superseded, and reads back the same', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-txn-journal-'));
    try {
      const journal = new TransactionLog(dir, 'never', silentLogger());
      const state = {
        transactionalId: 'tx',
        producerId: 1,
        producerEpoch: 0,
        status: 'Empty' as const,
        timeoutMs: 1000,
        sinceMs: 0,
        partitions: [],
        offsets: {},
      };
      for (let epoch = 0; epoch < 1500; epoch++) await journal.put({ ...state, producerEpoch: epoch });
      await journal.putAborts([{ topic: 'x', partition: 0, producerId: 1, firstOffset: 3, lastOffset: 5 }]);
      await journal.close();
      const lines = fs.readFileSync(path.join(dir, 'transactions.journal'), 'utf8').split('\n').length - 1;
      expect(lines).toBeLessThan(1000);
      const reread = new TransactionLog(dir, 'never', silentLogger());
      expect(reread.states.get('tx')?.producerEpoch).toBe(1499);
      expect(reread.aborts).toEqual([{ topic: 'x', partition: 0, producerId: 1, firstOffset: 3, lastOffset: 5 }]);
      await reread.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a partition’s aborted transactions', () => {
  test('a read_committed fetch of [from, upTo) is told the spans overlapping it', () => {
    const txns = new PartitionTransactions();
    const spans = [
      { producerId: 1, firstOffset: 0, lastOffset: 4 },
      { producerId: 2, firstOffset: 2, lastOffset: 9 },
      { producerId: 3, firstOffset: 12, lastOffset: 15 },
    ];
    for (const s of spans) txns.addAborted(s);
    txns.addAborted(spans[0]!); // a recovery writing the same abort again
    expect(txns.abortedBetween(0, 20)).toEqual(spans);
    expect(txns.abortedBetween(5, 12)).toEqual([spans[1]]);
    expect(txns.abortedBetween(10, 20)).toEqual([spans[2]]);
    expect(txns.abortedBetween(16, 30)).toEqual([]);
  });
});
