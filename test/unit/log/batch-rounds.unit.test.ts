import { BatchRounds } from '../../../src/log/batch-rounds';

/** A round runner that records each round's records and finishes a round only when told to. */
function recordingRunner() {
  const rounds: string[][] = [];
  const finish: (() => void)[] = [];
  const run = (batches: string[][]): Promise<number[]> => {
    rounds.push(batches.flat());
    return new Promise((resolve) => finish.push(() => resolve(batches.map((b) => b.length))));
  };
  return { rounds, finish, run };
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('a subscription’s batches are handled in rounds', () => {
  test('batches handed in the same turn share a round, in order; a later turn starts another beside it', async () => {
    const { rounds, finish, run } = recordingRunner();
    const r = new BatchRounds<string[], number>(run, 100, (b) => b.length);
    const first = [r.handle(['p0-a', 'p0-b']), r.handle(['p1-a'])];
    await turn();
    expect(rounds).toEqual([['p0-a', 'p0-b', 'p1-a']]);
    const second = [r.handle(['p2-a']), r.handle(['p3-a'])];
    await turn();
    expect(rounds[1]).toEqual(['p2-a', 'p3-a']); // while the first still runs
    let firstDone = false;
    void Promise.all(first).then(() => (firstDone = true));
    finish[1]!();
    await expect(Promise.all(second)).resolves.toEqual([1, 1]); // each batch gets its own answer
    expect(firstDone).toBe(false);
    finish[0]!();
    await expect(Promise.all(first)).resolves.toHaveLength(2);
  });

  test('a round takes batches up to its record limit (at least one batch); the rest form further rounds', async () => {
    const { rounds, finish, run } = recordingRunner();
    const r = new BatchRounds<string[], number>(run, 3, (b) => b.length);
    const all = [r.handle(['a', 'b', 'c', 'd']), r.handle(['e']), r.handle(['f', 'g']), r.handle(['h'])];
    await turn();
    expect(rounds).toEqual([['a', 'b', 'c', 'd'], ['e', 'f', 'g'], ['h']]);
    finish.forEach((f) => f());
    await Promise.all(all);
  });

  test('a failed round fails every batch in it, and later rounds still run', async () => {
    let calls = 0;
    const r = new BatchRounds<string[], string>(
      async (batches) => {
        calls++;
        if (batches.flat().includes('bad')) throw new Error('store unavailable');
        return batches.map((b) => `done ${b.join()}`);
      },
      100,
      (b) => b.length,
    );
    const failed = [r.handle(['ok-1']), r.handle(['bad'])];
    await expect(failed[0]).rejects.toThrow('store unavailable');
    await expect(failed[1]).rejects.toThrow('store unavailable');
    await expect(r.handle(['ok-2'])).resolves.toBe('done ok-2');
    expect(calls).toBe(2);
  });

  describe('with a linger', () => {
    const linger = { ms: 60, size: 3 };
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

    test('a small round after a small round waits for more, and what came meanwhile joins it', async () => {
      const { rounds, finish, run } = recordingRunner();
      const r = new BatchRounds<string[], number>(run, 100, (b) => b.length, linger);
      const first = r.handle(['a']);
      await turn();
      expect(rounds).toEqual([['a']]); // the first round never lingers: nothing says a trickle has begun
      finish[0]!();
      await first;
      const later = [r.handle(['b'])];
      await sleep(20);
      later.push(r.handle(['c']));
      await sleep(10);
      expect(rounds).toHaveLength(1); // still lingering
      while (rounds.length < 2) await sleep(5); // the linger's timer, however late a busy machine runs it
      expect(rounds[1]).toEqual(['b', 'c']);
      finish[1]!();
      await expect(Promise.all(later)).resolves.toEqual([1, 1]);
    });

    test('a round that reaches the size starts at once, and so does the first small round after it', async () => {
      const { rounds, finish, run } = recordingRunner();
      const r = new BatchRounds<string[], number>(run, 100, (b) => b.length, linger);
      await Promise.all([r.handle(['a']), turn().then(() => finish[0]!())]);
      const small = r.handle(['b']);
      await turn();
      expect(rounds).toHaveLength(1); // lingering after a small round
      const full = r.handle(['c', 'd']);
      await turn();
      expect(rounds[1]).toEqual(['b', 'c', 'd']); // three records: the size
      finish[1]!();
      await Promise.all([small, full]);
      const tail = r.handle(['e']);
      await turn();
      expect(rounds[2]).toEqual(['e']); // after a full round, at once
      finish[2]!();
      await tail;
    });

    test('a linger of 0 ms is none: a small round after a small round starts in the same turn', async () => {
      const { rounds, finish, run } = recordingRunner();
      const r = new BatchRounds<string[], number>(run, 100, (b) => b.length, { ms: 0, size: 3 });
      await Promise.all([r.handle(['a']), turn().then(() => finish[0]!())]);
      const next = r.handle(['b']);
      await turn();
      expect(rounds).toEqual([['a'], ['b']]);
      finish[1]!();
      await next;
    });
  });
});
