import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP server in front of `target` that hangs up, unanswered, on the first `drops` tries of every distinct
 * request (method and path; Infinity: every try), and forwards the others: a registry that drops connections.
 * Its URL path is the target's, after `/proxied`.
 */
export interface DroppingProxy {
  readonly url: string;
  /** Every request it received, as `METHOD /path`. */
  readonly seen: string[];
  close(): Promise<void>;
}

export async function startDroppingProxy(target: string, drops = 1): Promise<DroppingProxy> {
  const tries = new Map<string, number>();
  const seen: string[] = [];
  const bodyOf = async (req: IncomingMessage): Promise<Buffer> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const server = createServer((req, res) => {
    void bodyOf(req).then(async (body) => {
      const path = req.url!.replace(/^\/proxied/, '');
      const request = `${req.method} ${path}`;
      seen.push(request);
      const tried = tries.get(request) ?? 0;
      tries.set(request, tried + 1);
      if (tried < drops) {
        req.socket.destroy();
        return;
      }
      const answer = await fetch(`${target}${path}`, {
        method: req.method!,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(body.length > 0 && { body }),
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/proxied`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
