import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long, and how much, a connection that is being closed keeps reading what its client still sends. */
export interface LingerLimits {
  /** The longest wait for the client's next bytes (nginx's `lingering_timeout`). */
  readonly idleMs: number;
  /** The longest linger in all (nginx's `lingering_time`). */
  readonly totalMs: number;
  /** The most bytes read and thrown away: past that, reading on would cost more than a reset. */
  readonly maxBytes: number;
}

/** nginx's defaults for the two times; 64 MiB covers any body a client sends past a limit of a few MiB. */
export const LINGER_LIMITS: LingerLimits = { idleMs: 5_000, totalMs: 30_000, maxBytes: 64 * 1024 * 1024 };

/** How often a lingering connection's bounds are checked. */
const LINGER_CHECK_MS = 100;

/** `destroySoon` is net.Socket's own (undocumented) close: end, then destroy once written. */
type ClosableSocket = Socket & { destroySoon?: () => void };

/**
 * A lingering close, as nginx's `lingering_close` and Go's `closeWriteAndWait` do it. When an answer closes the
 * connection before the request's body was all read (fastify answers 413 with `connection: close` as soon as the
 * Content-Length is over the limit), Node ends the socket and destroys it once the answer is written. The client
 * is still sending, so the kernel answers its next bytes, or the ones still unread, with a reset, and a reset that
 * arrives before the client read the answer discards it: the client sees ECONNRESET or EPIPE instead of a 413.
 * Lingering instead sends the answer and a FIN, then reads and discards until the body is all in, the client
 * closes, or a limit is reached; only then is the socket destroyed, with nothing unread.
 */
export class LingeringClose {
  private readonly lingering = new Set<Socket>();
  /** The latest request answered early on each watched connection: a keep-alive connection may see several. */
  private readonly answeredEarly = new WeakMap<Socket, IncomingMessage>();
  private closing = false;

  constructor(private readonly limits: LingerLimits = LINGER_LIMITS) {}

  /** Called while answering `request`: if the answer turns out to close the connection early, it lingers. */
  watch(request: IncomingMessage): void {
    const socket = request.socket as ClosableSocket | null;
    if (request.complete || !hasBody(request) || typeof socket?.destroySoon !== 'function') return;
    const watchedBefore = this.answeredEarly.has(socket);
    this.answeredEarly.set(socket, request);
    if (watchedBefore) return;
    const closeAtOnce = socket.destroySoon;
    // Node's HTTP server closes a connection after its last answer by calling exactly this method (lib/_http_server.js,
    // resOnFinish); an own property of this one socket takes its place, and only for this connection.
    socket.destroySoon = () => {
      const latest = this.answeredEarly.get(socket);
      if (!latest || latest.complete || this.closing) closeAtOnce.call(socket);
      else this.linger(socket, latest);
    };
  }

  /** Shutting down does not wait for clients' uploads: every lingering connection is destroyed now. */
  closeAll(): void {
    this.closing = true;
    for (const socket of this.lingering) socket.destroy();
    this.lingering.clear();
  }

  /** How many connections linger now. */
  get size(): number {
    return this.lingering.size;
  }

  private linger(socket: Socket, request: IncomingMessage): void {
    this.lingering.add(socket);
    socket.end();
    // Node's HTTP parser goes on reading the body from the socket and, the request being dumped, discards it. The
    // bounds are checked on bytesRead by a timer rather than a 'data' listener: one takes the socket from Node's
    // native parser, and with it 3 to 5 uploads in a hundred met EPIPE again after their 413 (cause not pinned down).
    const started = Date.now();
    const readBefore = socket.bytesRead;
    let lastRead = readBefore;
    let lastReadAt = started;
    const check = (): void => {
      const now = Date.now();
      if (socket.bytesRead !== lastRead) [lastRead, lastReadAt] = [socket.bytesRead, now];
      const over = lastRead - readBefore > this.limits.maxBytes || now - lastReadAt > this.limits.idleMs || now - started > this.limits.totalMs;
      if (over) close();
    };
    const timer = setInterval(check, LINGER_CHECK_MS);
    const close = (): void => {
      clearInterval(timer);
      request.off('end', close);
      socket.destroy();
    };
    // The body is all in, or the client closed: nothing is left unread, so destroying sends no reset.
    request.once('end', close);
    socket.once('end', close);
    socket.once('close', () => {
      clearInterval(timer);
      this.lingering.delete(socket);
    });
  }
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
