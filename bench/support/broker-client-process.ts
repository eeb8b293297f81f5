import { fork, type ChildProcess } from 'node:child_process';
import { type ClientRun, type ConsumeOrder, type ProduceOrder, consume, produce } from './broker-clients';

/**
 * A process of its own for the broker benchmark's kafkajs clients (broker-clients.ts): the broker keeps its
 * process, and the clients run on the machine's other core, as outside producers and consumers would.
 */
type Order = { id: number; kind: 'produce'; order: ProduceOrder } | { id: number; kind: 'consume'; order: ConsumeOrder };
type Answer = { id: number; result?: ClientRun; error?: string };

export class BrokerClientProcess {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (r: ClientRun) => void; reject: (e: Error) => void }>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (answer: Answer) => {
      const waiter = this.waiting.get(answer.id);
      this.waiting.delete(answer.id);
      if (answer.error !== undefined || !answer.result) waiter?.reject(new Error(`broker client process: ${answer.error ?? 'no result'}`));
      else waiter?.resolve(answer.result);
    });
    child.on('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`broker client process exited (${code})`));
      this.waiting.clear();
    });
  }

  /** Forks this file with the parent's loader flags (tsx), so TypeScript runs in the child as here. */
  static start(): BrokerClientProcess {
    return new BrokerClientProcess(
      fork(__filename, ['--broker-client-process'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    );
  }

  produce(order: ProduceOrder): Promise<ClientRun> {
    return this.send({ kind: 'produce', order });
  }

  consume(order: ConsumeOrder): Promise<ClientRun> {
    return this.send({ kind: 'consume', order });
  }

  /** The child exits once its channel closes (a clean exit: a `--cpu-prof` run writes its profile). */
  stop(): void {
    this.child.disconnect();
  }

  private send(order: Omit<Order, 'id'>): Promise<ClientRun> {
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
    const work = message.kind === 'produce' ? produce(message.order) : consume(message.order);
    work.then(
      (result) => process.send?.({ id: message.id, result } satisfies Answer),
      (error: unknown) => process.send?.({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies Answer),
    );
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes('--broker-client-process')) serve();
