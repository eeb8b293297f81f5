import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrokerContext } from '../../../src/embedded/kafka/broker';
import { resolveOptions } from '../../../src/embedded/kafka/options';
import { TRANSACTIONAL_FLAG } from '../../../src/embedded/kafka/protocol/record-batch';
import { crc32c } from '../../../src/embedded/kafka/protocol/crc32c';
import { ErrorCode } from '../../../src/embedded/kafka/protocol/errors';
import { CRC_START, encodeRecordBatch } from '../../../src/embedded/kafka/protocol/record-batch';
import { TransactionLog } from '../../../src/embedded/kafka/txn/transaction-log';
import type { TxnStatus } from '../../../src/embedded/kafka/txn/transaction-state';
import { silentLogger } from '../../../src/logger';

/** A batch of a transactional producer, as a client sends it. */
function transactionalBatch(producerId: number, producerEpoch: number, baseSequence: number, value: string): Buffer {
  const batch = encodeRecordBatch({ records: [{ value }], producerId, producerEpoch, baseSequence });
  batch.writeInt16BE(batch.readInt16BE(21) | TRANSACTIONAL_FLAG, 21);
  batch.writeUInt32BE(crc32c(batch, CRC_START), 17);
  return batch;
}

/**
 * A crash between the coordinator's steps, replayed on a data directory: the broker is stopped with a transaction
 * open (its journal then says Ongoing), and the state a crash could leave is written to the journal before the
 * broker opens the directory again.
 */
describe('transaction recovery at broker start', () => {
  let dir: string;
  let broker: BrokerContext;
  const open = async (): Promise<BrokerContext> => {
    broker = new BrokerContext(resolveOptions({ dataDir: dir, port: 0, logger: silentLogger() }));
    await broker.transactions.recover();
    return broker;
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-txn-recovery-'));
  });
  afterEach(async () => {
    await broker.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A transaction of 'tx' with one record on each of x-0 and x-1, left open when the broker stops. */
  async function openTransaction(): Promise<{ producerId: number; producerEpoch: number }> {
    const b = await open();
    b.logs.createTopic('x', 2);
    const { producerId, producerEpoch } = await b.transactions.initProducerId('tx', 60_000);
    expect(
      await b.transactions.addPartitions(
        'tx',
        producerId,
        producerEpoch,
        [0, 1].map((partition) => ({ topic: 'x', partition })),
      ),
    ).toEqual([0, 0]);
    for (const p of [0, 1]) {
      const log = b.logs.partition('x', p)!;
      expect(log.append([transactionalBatch(producerId, producerEpoch, 0, `v${p}`)]).errorCode).toBe(ErrorCode.NONE);
      b.logs.appended(log);
    }
    await b.logs.waitDurable();
    expect(b.logs.partition('x', 0)!.lastStableOffset).toBe(0);
    await b.close();
    return { producerId, producerEpoch };
  }

  /** What a crash right after the coordinator journaled its decision leaves: the decision, no markers. */
  async function crashAfterDeciding(status: TxnStatus): Promise<void> {
    const journal = new TransactionLog(path.join(dir, 'transactions'), 'always', silentLogger());
    const state = journal.states.get('tx')!;
    expect(state.status).toBe('Ongoing');
    await journal.put({ ...state, status });
    await journal.close();
  }

  test('a decided commit is finished: a commit marker on every partition, nothing aborted', async () => {
    await openTransaction();
    await crashAfterDeciding('PrepareCommit');
    const b = await open();
    for (const p of [0, 1]) {
      const log = b.logs.partition('x', p)!;
      expect(log.logEndOffset).toBe(2);
      expect(log.lastStableOffset).toBe(2);
      expect(log.transactions.abortedBetween(0, 2)).toEqual([]);
    }
    expect(b.transactions.states()[0]!.status).toBe('CompleteCommit');
  });

  test('a commit whose end line was not on disk yet is finished again: one more marker, the same offsets', async () => {
    const { producerId, producerEpoch } = await openTransaction();
    const b = await open();
    // The restart aborted the open transaction and bumped the epoch; a second transaction commits with offsets.
    const epoch = (await b.transactions.initProducerId('tx', 60_000)).producerEpoch;
    expect(epoch).toBe(producerEpoch + 2);
    await b.transactions.addPartitions('tx', producerId, epoch, [{ topic: 'x', partition: 0 }]);
    await b.transactions.addOffsets('tx', producerId, epoch, 'g');
    await b.transactions.commitOffsets('tx', producerId, epoch, 'g', [['x', 0, 7, -1, null]]);
    expect(await b.transactions.endTxn('tx', producerId, epoch, true)).toBe(ErrorCode.NONE);
    const endBefore = b.logs.partition('x', 0)!.logEndOffset;
    await b.close();
    // What a power loss before the CompleteCommit line reached the disk leaves: the journal up to PrepareCommit.
    const file = path.join(dir, 'transactions', 'transactions.journal');
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines.at(-1)).toContain('CompleteCommit');
    fs.writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
    const again = await open();
    const log = again.logs.partition('x', 0)!;
    expect(log.logEndOffset).toBe(endBefore + 1);
    expect(log.lastStableOffset).toBe(endBefore + 1);
    expect(again.groups.offsetStore.get('g', 'x', 0)?.offset).toBe(7);
    expect(again.transactions.states()[0]).toMatchObject({ status: 'CompleteCommit', producerEpoch: epoch });
  });

  test('a decided abort is finished, and its aborted spans survive a later restart', async () => {
    const { producerId } = await openTransaction();
    await crashAfterDeciding('PrepareAbort');
    await (await open()).close();
    const b = await open();
    for (const p of [0, 1]) {
      const log = b.logs.partition('x', p)!;
      expect(log.lastStableOffset).toBe(2);
      expect(log.transactions.abortedBetween(0, 2)).toEqual([{ producerId, firstOffset: 0, lastOffset: 1 }]);
    }
    expect(b.transactions.states()[0]!.status).toBe('CompleteAbort');
  });

  test('an undecided transaction is aborted with a bumped epoch, fencing its producer on every partition', async () => {
    const { producerId, producerEpoch } = await openTransaction();
    const b = await open();
    const log = b.logs.partition('x', 1)!;
    expect(log.transactions.abortedBetween(0, 2)).toEqual([{ producerId, firstOffset: 0, lastOffset: 1 }]);
    expect(b.transactions.states()[0]).toMatchObject({ status: 'CompleteAbort', producerEpoch: producerEpoch + 1 });
    expect(log.append([transactionalBatch(producerId, producerEpoch, 1, 'zombie')]).errorCode).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(await b.transactions.endTxn('tx', producerId, producerEpoch, true)).toBe(ErrorCode.INVALID_PRODUCER_EPOCH);
    expect(await b.transactions.initProducerId('tx', 60_000)).toEqual({ errorCode: ErrorCode.NONE, producerId, producerEpoch: producerEpoch + 2 });
  });

  test('a transaction begun in a segment that rolled since is aborted from its first record after a restart', async () => {
    const b = await open();
    b.logs.createTopic('y', 1, { 'segment.bytes': '200' });
    const { producerId, producerEpoch } = await b.transactions.initProducerId('tx', 60_000);
    await b.transactions.addPartitions('tx', producerId, producerEpoch, [{ topic: 'y', partition: 0 }]);
    const log = b.logs.partition('y', 0)!;
    for (let seq = 0; seq < 4; seq++)
      expect(log.append([transactionalBatch(producerId, producerEpoch, seq, `v${seq}`.repeat(20))]).errorCode).toBe(ErrorCode.NONE);
    b.logs.appended(log);
    await b.logs.waitDurable();
    expect(fs.readdirSync(path.join(dir, 'topics', 'y', '0')).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(1);
    await b.close();

    const reopened = await open();
    expect(reopened.logs.partition('y', 0)!.transactions.abortedBetween(0, 5)).toEqual([{ producerId, firstOffset: 0, lastOffset: 4 }]);
  });
});
