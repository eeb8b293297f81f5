import { OrderedCommits } from '../../../../src/log/in-process/ordered-commits';

const later = (): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } => {
  let resolve: () => void = () => undefined;
  let reject: (e: Error) => void = () => undefined;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe('ordered offset commits of batches that settle after they were handled', () => {
  test('each offset is committed once its batch and every earlier one settled, in order', async () => {
    const commits = new OrderedCommits();
    const committed: number[] = [];
    const [first, second] = [later(), later()];
    commits.queue(
      first.promise,
      () => committed.push(1) > 0,
      () => undefined,
    );
    commits.queue(
      second.promise,
      () => committed.push(2) > 0,
      () => undefined,
    );
    commits.queue(
      undefined,
      () => committed.push(3) > 0,
      () => undefined,
    );
    expect(commits.busy).toBe(true);
    second.resolve();
    await new Promise((r) => setImmediate(r));
    expect(committed).toEqual([]); // the second settled, but the first has not
    first.resolve();
    await commits.drained();
    expect(committed).toEqual([1, 2, 3]);
    expect(commits.busy).toBe(false);
  });

  test('a batch whose work failed is not committed, nor is anything after it; the failure is told once', async () => {
    const commits = new OrderedCommits();
    const committed: number[] = [];
    const failures: unknown[] = [];
    const failing = later();
    commits.queue(
      undefined,
      () => committed.push(1) > 0,
      (e) => failures.push(e),
    );
    commits.queue(
      failing.promise,
      () => committed.push(2) > 0,
      (e) => failures.push(e),
    );
    commits.queue(
      Promise.resolve(),
      () => committed.push(3) > 0,
      (e) => failures.push(e),
    );
    failing.reject(new Error('outcomes not published'));
    await commits.drained();
    expect(committed).toEqual([1]);
    expect(failures).toEqual([new Error('outcomes not published')]);
  });

  test('a refused commit (the group moved on) stops the commits after it', async () => {
    const commits = new OrderedCommits();
    const committed: number[] = [];
    let refusals = 0;
    commits.queue(
      Promise.resolve(),
      () => false,
      () => refusals++,
    );
    commits.queue(
      Promise.resolve(),
      () => committed.push(2) > 0,
      () => refusals++,
    );
    await commits.drained();
    expect(committed).toEqual([]);
    expect(refusals).toBe(1);
  });
});
