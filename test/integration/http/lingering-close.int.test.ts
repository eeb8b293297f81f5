/**
 * The bounds of a lingering close, on a node:http server that answers 413 with `connection: close` before reading
 * the body (as fastify does), and raw sockets as clients. The e2e suite oversize-bodies checks what clients see.
 */
import http from 'node:http';
import net from 'node:net';
import { LingeringClose } from '../../../src/http/lingering-close';

const LIMITS = { idleMs: 400, totalMs: 1_500, maxBytes: 4 * 1024 * 1024 };

describe('lingering close', () => {
  let server: http.Server;
  let lingering: LingeringClose;
  let port = 0;

  beforeEach(async () => {
    lingering = new LingeringClose(LIMITS);
    server = http.createServer((request, response) => {
      lingering.watch(request);
      response.writeHead(413, { 'content-type': 'text/plain', connection: 'close' }).end('too large');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterEach(async () => {
    lingering.closeAll();
    await new Promise((resolve) => server.close(resolve));
  });

  /**
   * A half-open client that declares `declared` bytes, then `feed`s the server. The server's FIN comes right after
   * its answer, so only the server's side tells when it closed for good: `closedAfterMs` is measured there.
   */
  function client(declared: number, feed: (socket: net.Socket) => void): Promise<{ answer: string; closedAfterMs: number; error?: string }> {
    return new Promise((resolve) => {
      const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      const chunks: Buffer[] = [];
      let error: string | undefined;
      let started = 0;
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code));
      server.once('connection', (served: net.Socket) =>
        served.once('close', () => {
          const closedAfterMs = Date.now() - started;
          // Whatever the client still sends now meets a closed socket; let its last bytes land first.
          setTimeout(() => {
            socket.destroy();
            resolve({ answer: Buffer.concat(chunks).toString(), closedAfterMs, ...(error && { error }) });
          }, 50);
        }),
      );
      socket.once('connect', () => {
        socket.write(`POST / HTTP/1.1\r\nHost: x\r\ncontent-length: ${declared}\r\n\r\n`);
        started = Date.now();
        feed(socket);
      });
    });
  }

  const trickle = (socket: net.Socket, bytes: number, everyMs: number): void => {
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(Buffer.alloc(bytes, 'x'), () => undefined)), everyMs);
    socket.once('close', () => clearInterval(timer));
  };

  test('a body that arrives whole ends the linger at once, and the client reads the answer', async () => {
    const outcome = await client(1_000_000, (socket) => socket.end(Buffer.alloc(1_000_000, 'x')));
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.error).toBeUndefined();
    expect(outcome.closedAfterMs).toBeLessThan(LIMITS.idleMs);
  });

  test('a client that stops sending is closed after the idle time', async () => {
    const outcome = await client(1_000_000, (socket) => socket.write(Buffer.alloc(1_000, 'x')));
    expect(outcome.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.idleMs);
    expect(outcome.closedAfterMs).toBeLessThan(LIMITS.totalMs);
  });

  test('a client that keeps trickling is closed after the total time', async () => {
    const outcome = await client(1_000_000_000, (socket) => trickle(socket, 100, 50));
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.totalMs);
    expect(outcome.closedAfterMs).toBeLessThan(LIMITS.totalMs + 1_000);
  });

  test('a client that sends more than the byte bound is closed before the idle or total time', async () => {
    const outcome = await client(1_000_000_000, (socket) => trickle(socket, 1024 * 1024, 10));
    expect(outcome.closedAfterMs).toBeLessThan(LIMITS.totalMs);
  });

  test('shutting down destroys every lingering connection at once', async () => {
    const outcome = client(1_000_000_000, (socket) => trickle(socket, 100, 50));
    const deadline = Date.now() + 1_000;
    while (lingering.size === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(lingering.size).toBe(1);
    lingering.closeAll();
    expect((await outcome).closedAfterMs).toBeLessThan(LIMITS.idleMs);
    expect(lingering.size).toBe(0);
  });
});
