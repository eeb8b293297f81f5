import { type ClientRun, type ConsumeOrder, type ProduceOrder, consume, produce } from './broker-clients';
import { OrderChannel, serveOrders } from './order-channel';

/**
 * A process of its own for the broker benchmark's kafkajs clients (broker-clients.ts): the broker keeps its
 * process, and the clients run on the machine's other core, as outside producers and consumers would.
 */
type Order = { kind: 'produce'; order: ProduceOrder } | { kind: 'consume'; order: ConsumeOrder };

export class BrokerClientProcess {
  private constructor(private readonly channel: OrderChannel<Order, ClientRun>) {}

  static start(): BrokerClientProcess {
    return new BrokerClientProcess(OrderChannel.fork<Order, ClientRun>(__filename, '--broker-client-process', 'broker client process'));
  }

  produce(order: ProduceOrder): Promise<ClientRun> {
    return this.channel.send({ kind: 'produce', order });
  }

  consume(order: ConsumeOrder): Promise<ClientRun> {
    return this.channel.send({ kind: 'consume', order });
  }

  /** The child exits once its channel closes (a clean exit: a `--cpu-prof` run writes its profile). */
  stop(): void {
    this.channel.disconnect();
  }
}

if (process.argv.includes('--broker-client-process')) {
  serveOrders<Order, ClientRun>((message) => (message.kind === 'produce' ? produce(message.order) : consume(message.order)));
}
