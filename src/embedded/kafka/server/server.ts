import net from 'node:net';
import type { BrokerContext } from '../broker';
import { Connection } from './connection';

/**
 * The TCP listener: one Connection per client socket. A socket beyond `maxConnections`, or beyond
 * `maxConnectionsPerIp` from its address, is closed as soon as it is accepted, so a flood costs a file
 * descriptor for a moment, not for as long as the flood wants.
 */
export class KafkaServer {
  private readonly server: net.Server;
  private readonly connections = new Set<Connection>();
  private readonly perAddress = new Map<string, number>();
  /** Connections closed at once because a cap was reached. */
  refused = 0;

  constructor(
    private readonly broker: BrokerContext,
    private readonly maxFrameBytes: number,
  ) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  private accept(socket: net.Socket): void {
    const { maxConnections, maxConnectionsPerIp } = this.broker.options;
    const address = socket.remoteAddress ?? '';
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (this.connections.size >= maxConnections || fromAddress >= maxConnectionsPerIp) {
      this.refused++;
      if (this.refused === 1 || this.refused % 1000 === 0) {
        this.broker.logger.warn(
          { remote: address, open: this.connections.size, fromAddress, refused: this.refused },
          'connection limit reached; closing new connections',
        );
      }
      socket.on('error', () => undefined);
      socket.destroy();
      return;
    }
    this.perAddress.set(address, fromAddress + 1);
    const c = new Connection(socket, this.broker, this.maxFrameBytes, (closed) => {
      if (!this.connections.delete(closed)) return;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left === 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
    this.connections.add(c);
  }

  get openConnections(): number {
    return this.connections.size;
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
