import { fork, type ChildProcess } from 'node:child_process';

/** An order on the channel: the caller's order and the id its answer comes back under. */
type Sent<O> = O & { id: number };
type Answer<R> = { id: number; result?: R; error?: string };

/**
 * Orders to a forked process of a benchmark's clients, each answered by its id (load-process.ts,
 * broker-client-process.ts): the parent's side. `serveOrders` is the child's.
 */
export class OrderChannel<O extends object, R> {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (r: R) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly child: ChildProcess,
    name: string,
  ) {
    child.on('message', (answer: Answer<R>) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (answer.error !== undefined || answer.result === undefined) waiter?.reject(new Error(`${name}: ${answer.error ?? 'no result'}`));
      else waiter?.resolve(answer.result);
    });
    child.on('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`${name} exited (${code})`));
      this.waiting.clear();
    });
  }

  /** Forks `file` with `flag` and the parent's Node flags (tsx's loader when it runs from TypeScript), so the child runs as the parent does. */
  static fork<O extends object, R>(file: string, flag: string, name: string): OrderChannel<O, R> {
    return new OrderChannel<O, R>(fork(file, [flag], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }), name);
  }

  send(order: O): Promise<R> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ ...order, id } satisfies Sent<O>);
    });
  }

  /** The child exits once its channel closes (a clean exit: a `--cpu-prof` run writes its profile). */
  disconnect(): void {
    this.child.disconnect();
  }

  kill(): void {
    this.child.kill();
  }
}

/** Child side: runs each order as it comes and answers with its result; exits when the parent lets go. */
export function serveOrders<O extends object, R>(run: (order: O) => Promise<R>): void {
  process.on('message', ({ id, ...order }: Sent<O>) => {
    run(order as unknown as O).then(
      (result) => process.send?.({ id, result } satisfies Answer<R>),
      (error: unknown) => process.send?.({ id, error: error instanceof Error ? error.message : String(error) } satisfies Answer<R>),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
