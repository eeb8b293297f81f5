import { PoolClosedError, SessionPool } from '../../../../src/crypto/hsm/session-pool';

function pool(max: number) {
  let next = 0;
  const closed: number[] = [];
  const p = new SessionPool<number>({ max, open: () => ++next, close: (s) => closed.push(s) });
  return { p, closed, opened: () => next };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SessionPool', () => {
  it('never lends more than max sessions and serves waiters in order', async () => {
    const { p, opened } = pool(2);
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        p.use(async () => {
          running++;
          peak = Math.max(peak, running);
          order.push(i);
          await tick();
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(opened()).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('discards a session after a failure it should not keep, and a waiter gets a fresh one', async () => {
    const { p, closed } = pool(1);
    const failing = p.use(async () => {
      await tick();
      throw new Error('operation state unknown');
    });
    const waiting = p.use(async (s) => s);
    await expect(failing).rejects.toThrow('operation state unknown');
    expect(await waiting).toBe(2);
    expect(closed).toEqual([1]);
  });

  it('keeps a session when the failure says so', async () => {
    const { p, closed } = pool(1);
    await expect(
      p.use(
        async () => Promise.reject(new Error('tag mismatch')),
        () => true,
      ),
    ).rejects.toThrow();
    expect(await p.use(async (s) => s)).toBe(1);
    expect(closed).toEqual([]);
  });

  it('close lets queued calls finish, then closes every session and refuses new ones', async () => {
    const { p, closed } = pool(1);
    const done: number[] = [];
    const calls = [1, 2, 3].map((i) =>
      p.use(async () => {
        await tick();
        done.push(i);
      }),
    );
    const closing = p.close();
    await expect(p.acquire()).rejects.toBeInstanceOf(PoolClosedError);
    await Promise.all(calls);
    await closing;
    expect(done).toEqual([1, 2, 3]);
    expect(closed).toEqual([1]);
    expect(p.size).toEqual({ idle: 0, busy: 0, waiting: 0 });
  });

  it('a session that cannot be opened fails only that call', async () => {
    let fail = true;
    const open = (): number => {
      if (fail) throw new Error('token gone');
      return 7;
    };
    const p = new SessionPool<number>({ max: 1, open, close: () => undefined });
    await expect(p.use(async (s) => s)).rejects.toThrow('token gone');
    fail = false;
    expect(await p.use(async (s) => s)).toBe(7);
  });
});
