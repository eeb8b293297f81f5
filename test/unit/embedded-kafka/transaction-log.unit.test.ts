import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TransactionLog } from '../../../src/embedded/kafka/txn/transaction-log';
import type { TxnState, TxnStatus } from '../../../src/embedded/kafka/txn/transaction-state';
import { silentLogger } from '../../../src/logger';

const state = (status: TxnStatus, partitions: string[] = ['t\u00000']): TxnState => ({
  transactionalId: 'emitter',
  producerId: 7,
  producerEpoch: 0,
  status,
  timeoutMs: 10_000,
  sinceMs: 0,
  partitions,
  offsets: {},
});

describe('the transaction journal', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'deltabroker-txn-log-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fileLines = (): string[] =>
    fs
      .readFileSync(path.join(dir, 'transactions.journal'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');

  test('a later line is applied at once and written with the next now line, in journal order', async () => {
    const journal = new TransactionLog(dir, 'always', silentLogger());
    await journal.put(state('Ongoing'));
    await journal.put(state('Ongoing', ['t\u00000', 't\u00001']), 'later');
    expect(journal.states.get('emitter')?.partitions).toHaveLength(2);
    expect(fileLines()).toHaveLength(1);
    await journal.put(state('PrepareCommit', ['t\u00000', 't\u00001']));
    expect(fileLines().map((l) => (JSON.parse(l.slice(9)) as { s: TxnState }).s.status)).toEqual(['Ongoing', 'Ongoing', 'PrepareCommit']);
    await journal.close();
    const reopened = new TransactionLog(dir, 'always', silentLogger());
    expect(reopened.states.get('emitter')?.status).toBe('PrepareCommit');
    await reopened.close();
  });

  test('a later line a crash caught in memory is gone after a restart; the periodic sync and the close write it', async () => {
    const journal = new TransactionLog(dir, 'always', silentLogger());
    await journal.put(state('PrepareCommit'));
    await journal.put(state('CompleteCommit', []), 'later');
    // A crash now: the file holds the decided state, which a restart finishes again (coordinator.recover).
    expect(new TransactionLog(dir, 'always', silentLogger()).states.get('emitter')?.status).toBe('PrepareCommit');
    await journal.syncIfBehind();
    expect(new TransactionLog(dir, 'always', silentLogger()).states.get('emitter')?.status).toBe('CompleteCommit');
    await journal.put(state('Ongoing'), 'later');
    await journal.close();
    expect(new TransactionLog(dir, 'always', silentLogger()).states.get('emitter')?.status).toBe('Ongoing');
  });
});
