import http from 'node:http';
import net from 'node:net';

/** What one upload saw: the answer, if one arrived whole, and any socket error before or after it. */
export interface UploadOutcome {
  bytes: number;
  status?: number;
  body?: string;
  /** An error (ECONNRESET, EPIPE, …) before the answer was read to its end: the client never learnt the status. */
  failure?: string;
  /** An error after the whole answer was read (the connection reset while the client still wrote). */
  failureAfterAnswer?: string;
  /** Whether the client's whole body went out before the connection ended. */
  bodySent: boolean;
}

export interface UploadOptions {
  /** Bytes per write; with `pauseMs`, the body goes out slowly, as a client on a slow link sends it. */
  chunkBytes?: number;
  pauseMs?: number;
}

/**
 * POSTs a JSON body of exactly `bytes` bytes on a connection of its own (node:http, no agent) and waits until the
 * connection closes, so the outcome includes how the server ended it.
 */
export function uploadJson(url: string, headers: Record<string, string>, bytes: number, options: UploadOptions = {}): Promise<UploadOutcome> {
  const target = new URL(url);
  const body = jsonOfSize(bytes);
  return new Promise((resolve) => {
    const outcome: UploadOutcome = { bytes, bodySent: false };
    let answered = false;
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      agent: false,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(bytes) },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        answered = true;
        outcome.status = response.statusCode;
        outcome.body = Buffer.concat(chunks).toString('utf8');
      });
      response.on('error', (error: NodeJS.ErrnoException) => {
        outcome.failure ??= error.code ?? error.message;
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const code = `${error.code ?? ''} ${error.message}`.trim();
      if (answered) outcome.failureAfterAnswer ??= code;
      else outcome.failure ??= code;
    });
    request.on('close', () => {
      if (!answered) outcome.failure ??= 'closed without an answer';
      resolve(outcome);
    });
    void send(request, body, options).then(
      () => (outcome.bodySent = true),
      () => undefined,
    );
  });
}

/**
 * The same upload on a raw socket that reads nothing until it has sent the whole body, `chunkBytes` at a time with
 * `pauseMs` between writes, as a client does that answers only after sending. The socket is half-open: the server's
 * FIN after its answer does not stop the upload, only a reset does.
 */
export function uploadSlowlyThenRead(url: string, headers: Record<string, string>, bytes: number, options: Required<UploadOptions>): Promise<UploadOutcome> {
  const target = new URL(url);
  const head = [
    `POST ${target.pathname} HTTP/1.1`,
    `Host: ${target.host}`,
    ...Object.entries({ ...headers, 'content-type': 'application/json', 'content-length': String(bytes) }).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ].join('\r\n');
  const body = jsonOfSize(bytes);
  return new Promise((resolve) => {
    const outcome: UploadOutcome = { bytes, bodySent: false };
    const received: Buffer[] = [];
    const socket = net.connect({ host: target.hostname, port: Number(target.port), allowHalfOpen: true });
    socket.pause();
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (outcome.failure ??= `${error.code ?? ''} ${error.message}`.trim()));
    socket.on('close', () => {
      const answer = Buffer.concat(received).toString('utf8');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
      if (status) outcome.status = Number(status[1]);
      outcome.body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
      resolve(outcome);
    });
    socket.once('connect', () => {
      void (async () => {
        socket.write(head);
        for (let at = 0; at < body.length && !socket.destroyed; at += options.chunkBytes) {
          await new Promise<void>((done, fail) => socket.write(body.subarray(at, at + options.chunkBytes), (error) => (error ? fail(error) : done())));
          await new Promise((done) => setTimeout(done, options.pauseMs));
        }
        outcome.bodySent = true;
        socket.end();
        socket.resume();
      })().catch(() => socket.resume());
    });
  });
}

async function send(request: http.ClientRequest, body: Buffer, options: UploadOptions): Promise<void> {
  const chunkBytes = options.chunkBytes ?? body.length;
  for (let at = 0; at < body.length; at += chunkBytes) {
    if (request.destroyed) throw new Error('closed while sending');
    const last = at + chunkBytes >= body.length;
    const chunk = body.subarray(at, at + chunkBytes);
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null): void => (error ? reject(error) : resolve());
      if (last) request.end(chunk, () => done());
      else request.write(chunk, done);
    });
    if (options.pauseMs && !last) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}

/** An encrypt request whose payload pads the body to exactly `bytes` bytes. */
function jsonOfSize(bytes: number): Buffer {
  const head = Buffer.from('{"dispatch":{"operation":"encrypt","method":"aes"},"payload":"');
  const tail = Buffer.from('"}');
  const body = Buffer.alloc(bytes, 'x');
  head.copy(body, 0);
  tail.copy(body, bytes - tail.length);
  return body;
}
