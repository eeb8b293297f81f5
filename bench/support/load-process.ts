import { runHttpLoad, type HttpLoadOrder, type LoadResult } from '../http-load';
import { produceDeltas, writeOverHttp, type HttpAnswers, type HttpWriteOrder, type ProduceOrder, type SentTimes } from './load-clients';
import { OrderChannel, serveOrders } from './order-channel';

/**
 * A process of its own for a benchmark's clients (load-clients.ts): the service under test keeps its thread,
 * and the load runs on the machine's other core, as an outside producer or HTTP client would.
 */
type Order = { kind: 'produce'; order: ProduceOrder } | { kind: 'http'; order: HttpWriteOrder } | { kind: 'load'; order: HttpLoadOrder };
type Result = SentTimes | HttpAnswers | LoadResult;

export class LoadProcess {
  private constructor(private readonly channel: OrderChannel<Order, Result>) {}

  static start(): LoadProcess {
    return new LoadProcess(OrderChannel.fork<Order, Result>(__filename, '--load-process', 'load process'));
  }

  produce(order: ProduceOrder): Promise<SentTimes> {
    return this.channel.send({ kind: 'produce', order }) as Promise<SentTimes>;
  }

  writeOverHttp(order: HttpWriteOrder): Promise<HttpAnswers> {
    return this.channel.send({ kind: 'http', order }) as Promise<HttpAnswers>;
  }

  /** Closed-loop keep-alive HTTP load (http-load.ts), timed in this process. */
  httpLoad(order: HttpLoadOrder): Promise<LoadResult> {
    return this.channel.send({ kind: 'load', order }) as Promise<LoadResult>;
  }

  stop(): void {
    this.channel.kill();
  }
}

if (process.argv.includes('--load-process')) {
  serveOrders<Order, Result>((message) =>
    message.kind === 'produce' ? produceDeltas(message.order) : message.kind === 'http' ? writeOverHttp(message.order) : runHttpLoad(message.order),
  );
}
