import net from 'node:net';

/**
 * A TCP proxy in front of the broker that can drop a connection right after forwarding a request of a
 * given API key, before its response comes back: the client sees a network error for a request the
 * broker did carry out, and retries it.
 */
export class FaultProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Number of upcoming requests with this API key whose responses are lost. */
  private drops = new Map<number, number>();
  port = 0;

  constructor(public target: { host: string; port: number }) {
    this.server = net.createServer((client) => this.pipe(client));
  }

  listen(): Promise<number> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', () => resolve((this.port = (this.server.address() as net.AddressInfo).port))));
  }

  dropResponseOf(apiKey: number, times = 1): void {
    this.drops.set(apiKey, times);
  }

  private pipe(client: net.Socket): void {
    const upstream = net.connect(this.target.port, this.target.host);
    this.sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 6) {
        const size = pending.readInt32BE(0);
        if (pending.length < size + 4) break;
        const apiKey = pending.readInt16BE(4);
        pending = pending.subarray(size + 4);
        const left = this.drops.get(apiKey) ?? 0;
        if (left > 0) {
          this.drops.set(apiKey, left - 1);
          // Let the broker read and handle the request, then cut both sides before the answer is relayed.
          cutting = true;
          client.pause();
          return;
        }
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutting) {
        client.destroy();
        upstream.destroy();
      } else if (!client.destroyed) {
        client.write(chunk);
      }
    });
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  }

  close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
