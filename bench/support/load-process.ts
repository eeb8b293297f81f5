import { runHttpLoad, type HttpLoadOrder, type LoadResult } from '../http-load';
import {
  produceDeltas,
  writeDeltasForKcat,
  writeOverHttp,
  type HttpAnswers,
  type HttpWriteOrder,
  type KcatInputOrder,
  type ProduceOrder,
  type SentTimes,
} from './load-clients';
import { OrderChannel, serveOrders } from './order-channel';

/**
 * A process of its own for a benchmark's clients (load-clients.ts): the service under test keeps its thread,
 * and the load runs on the machine's other core, as an outside producer or HTTP client would.
 */
type Order =
  | { kind: 'produce'; order: ProduceOrder }
  | { kind: 'kcat-input'; order: KcatInputOrder }
  | { kind: 'http'; order: HttpWriteOrder }
  | { kind: 'load'; order: HttpLoadOrder };
/** kcat's input is only written: its answer carries nothing. */
type Result = SentTimes | HttpAnswers | LoadResult | { written: true };

export class LoadProcess {
  private constructor(private readonly channel: OrderChannel<Order, Result>) {}

  static start(): LoadProcess {
    return new LoadProcess(OrderChannel.fork<Order, Result>(__filename, '--load-process', 'load process'));
  }

  produce(order: ProduceOrder): Promise<SentTimes> {
    return this.channel.send({ kind: 'produce', order }) as Promise<SentTimes>;
  }

  /** The deltas `produce` would send, encoded into kcat's input file; the benchmark runs kcat itself. */
  async writeKcatInput(order: KcatInputOrder): Promise<void> {
    await this.channel.send({ kind: 'kcat-input', order });
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
  serveOrders<Order, Result>(async (message) => {
    switch (message.kind) {
      case 'produce':
        return produceDeltas(message.order);
      case 'kcat-input':
        await writeDeltasForKcat(message.order);
        return { written: true };
      case 'http':
        return writeOverHttp(message.order);
      case 'load':
        return runHttpLoad(message.order);
    }
  });
}
