import net from 'node:net';
import { measured } from './support/cpu-time';

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface HttpLoadOrder {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  seconds: number;
  concurrency: number;
}

const HEADERS_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length: *(\d+)/i;

/**
 * Closed-loop HTTP load: `concurrency` keep-alive connections, each sending the same request and waiting for its
 * answer before the next, for `seconds`; latencies recorded. Benchmarks run it in a process of their own
 * (support/load-process.ts), so the clients do not share the service's thread.
 *
 * The client is lean, as wrk is: the request's bytes are built once and an answer is read only as far as its
 * status and Content-Length. Node's http client costs more CPU per request than the service's cheapest routes,
 * so with it the client process, not the service, set the ceiling of `GET /health`.
 */
export async function runHttpLoad(options: HttpLoadOrder): Promise<LoadResult> {
  const target = new URL(options.url);
  const request = requestBytes(target, options);
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + options.seconds * 1000;

  const connection = (): Promise<void> =>
    new Promise((resolve) => {
      const socket = net.connect({ host: target.hostname, port: Number(target.port), noDelay: true });
      let pending: Buffer = Buffer.alloc(0);
      let sentAt = 0;
      const send = (): void => {
        if (performance.now() >= deadline) {
          socket.end();
          return;
        }
        sentAt = performance.now();
        socket.write(request);
      };
      socket.on('connect', send);
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        const headersEnd = pending.indexOf(HEADERS_END);
        if (headersEnd < 0) return;
        const head = pending.toString('latin1', 0, headersEnd);
        const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
        const total = headersEnd + HEADERS_END.length + length;
        if (pending.length < total) return;
        if (head.slice(9, 12) !== '200') errors += 1;
        latencies.push(performance.now() - sentAt);
        pending = pending.subarray(total);
        send();
      });
      socket.on('error', () => {
        errors += 1;
        resolve();
      });
      socket.on('close', () => resolve());
    });

  const started = performance.now();
  await Promise.all(Array.from({ length: options.concurrency }, connection));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: latencies.length, errors, seconds, perSecond: latencies.length / seconds, p50Ms: at(0.5), p99Ms: at(0.99) };
}

function requestBytes(target: URL, options: HttpLoadOrder): Buffer {
  const body = options.body === undefined ? undefined : Buffer.from(options.body);
  const headers = { host: target.host, ...options.headers, ...(body && { 'content-length': String(body.length) }) };
  const head = `${options.method} ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body ?? Buffer.alloc(0)]);
}

export interface ServedLoad extends LoadResult {
  /** CPU of this process (the service under test: its main thread, libuv pool and GC threads) per answered request, in µs. */
  serviceCpuUsPerRequest: number;
}

/**
 * Runs a load whose clients are in another process against the service in this one, and adds the service's CPU
 * per request: a figure that other work on a shared machine disturbs far less than the rate does.
 */
export async function servedLoad(run: () => Promise<LoadResult>): Promise<ServedLoad> {
  const { value: result, cpuMicros } = await measured(run);
  return { ...result, serviceCpuUsPerRequest: cpuMicros / Math.max(1, result.requests) };
}
