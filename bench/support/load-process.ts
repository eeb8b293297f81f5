import { fork, type ChildProcess } from 'node:child_process';
import { runHttpLoad, type HttpLoadOrder, type LoadResult } from '../http-load';
import { produceDeltas, writeOverHttp, type HttpAnswers, type HttpWriteOrder, type ProduceOrder, type SentTimes } from './load-clients';

/**
 * A process of its own for a benchmark's clients (load-clients.ts): the service under test keeps its thread,
 * and the load runs on the machine's other core, as an outside producer or HTTP client would.
 */
type Order =
  | { id: number; kind: 'produce'; order: ProduceOrder }
  | { id: number; kind: 'http'; order: HttpWriteOrder }
  | { id: number; kind: 'load'; order: HttpLoadOrder };
type Result = SentTimes | HttpAnswers | LoadResult;
type Answer = { id: number; result?: Result; error?: string };

export class LoadProcess {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (r: Result) => void; reject: (e: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (answer: Answer) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (answer.error !== undefined || !answer.result) waiter?.reject(new Error(`load process: ${answer.error ?? 'no result'}`));
      else waiter?.resolve(answer.result);
    });
    child.on('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`load process exited (${code})`));
      this.waiting.clear();
    });
  }

  /** Forks this file with the parent's loader flags (tsx), so TypeScript runs in the child as here. */
  static start(): LoadProcess {
    return new LoadProcess(fork(__filename, ['--load-process'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  }

  produce(order: ProduceOrder): Promise<SentTimes> {
    return this.send({ kind: 'produce', order }) as Promise<SentTimes>;
  }

  writeOverHttp(order: HttpWriteOrder): Promise<HttpAnswers> {
    return this.send({ kind: 'http', order }) as Promise<HttpAnswers>;
  }

  /** Closed-loop keep-alive HTTP load (http-load.ts), timed in this process. */
  httpLoad(order: HttpLoadOrder): Promise<LoadResult> {
    return this.send({ kind: 'load', order }) as Promise<LoadResult>;
  }

  stop(): void {
    this.child.kill();
  }

  private send(order: Omit<Order, 'id'>): Promise<Result> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ ...order, id });
    });
  }
}

/** Child side: runs each order as it comes and answers with its result. */
function serve(): void {
  process.on('message', (message: Order) => {
    const work: Promise<Result> =
      message.kind === 'produce' ? produceDeltas(message.order) : message.kind === 'http' ? writeOverHttp(message.order) : runHttpLoad(message.order);
    work.then(
      (result) => process.send?.({ id: message.id, result } satisfies Answer),
      (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies Answer),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes('--load-process')) serve();
