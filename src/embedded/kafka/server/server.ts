import net from 'node:net';
import type { BrokerContext } from '../broker';
import { Connection } from './connection';

/** The TCP listener: one Connection per client socket. */
export class KafkaServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();

  constructor(
    private readonly broker: BrokerContext,
    private readonly maxFrameBytes: number,
  ) {
    this.server = net.createServer((socket) => {
      const c = new Connection(socket, this.broker, this.maxFrameBytes, (closed) => this.connections.delete(closed));
      this.connections.add(c);
    });
  }

  listen(port: number, host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen({ port, host }, () => {
        this.server.off('error', reject);
        resolve((this.server.address() as net.AddressInfo).port);
      });
    });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of [...this.connections]) c.close();
    await closed;
  }
}
